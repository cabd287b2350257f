"""Build-time code of the phone reader: synthetic training clips, CTC training, ONNX export."""
