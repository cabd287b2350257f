"""Build-time model tooling: conversion, export, training (needs the [build] extra)."""
