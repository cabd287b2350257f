; GPU pack for Windows x64: NVIDIA CUDA/cuDNN runtime DLLs for an installed
; Orthophonie, so that its onnxruntime can use an NVIDIA graphics card.
;
; Built by installer/windows/build_gpu_pack.sh, which defines VERSION,
; VI_VERSION, PACK (the staged folder: bin\, gpu-pack.json,
; THIRD_PARTY_LICENSES.txt), OUTFILE, INSTALLED_KB, COMPRESSOR and, when
; available, ICON and SIGN_SCRIPT.
;
; It installs into <main install dir>\gpu (read from the main setup's uninstall
; key; /D is ignored), where therapy_app.gpu_pack looks. The main setup replaces
; only python\ on an upgrade, so the pack stays; the main uninstaller removes it.
;
; Command line (IT deployment):
;   TherapyApp-GPU-X.Y.Z.exe /S                                   silent install
;   "C:\Program Files\TherapyApp\gpu\uninstall-gpu.exe" /S          silent uninstall
; Exit codes: 0 done, 1 cancelled, 2 error (e.g. the app still open),
; 4 Orthophonie is not installed.

Unicode true
Target amd64-unicode
ManifestDPIAware true
RequestExecutionLevel admin
SetCompressor /SOLID ${COMPRESSOR}

!define APP_NAME "Orthophonie"
!define APP_ID "TherapyApp"
!define PACK_NAME "${APP_NAME} – accélération par carte graphique NVIDIA"
!define PUBLISHER "Projet TherapyApp"
!define MAIN_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP_ID}"
; Both must match therapy_app.nsi (GPU_UNINST_KEY, GPU_DIR_NAME).
!define UNINST_KEY "${MAIN_KEY}-GPU"
!define GPU_DIR_NAME "gpu"
!define UNINSTALLER "uninstall-gpu.exe"

!include "MUI2.nsh"
!include "LogicLib.nsh"
!include "x64.nsh"

Name "${PACK_NAME}"
OutFile "${OUTFILE}"
InstallDir "$PROGRAMFILES64\${APP_ID}\${GPU_DIR_NAME}"
BrandingText "${APP_NAME} ${VERSION}"

VIProductVersion "${VI_VERSION}"
VIAddVersionKey /LANG=1036 "ProductName" "${PACK_NAME}"
VIAddVersionKey /LANG=1036 "FileDescription" "Installation de l'accélération NVIDIA de ${APP_NAME}"
VIAddVersionKey /LANG=1036 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=1036 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=1036 "CompanyName" "${PUBLISHER}"
VIAddVersionKey /LANG=1036 "LegalCopyright" "Bibliothèques NVIDIA et Microsoft : voir THIRD_PARTY_LICENSES.txt"

!ifdef SIGN_SCRIPT
  !uninstfinalize '"${SIGN_SCRIPT}" "%1"' = 0
  !finalize '"${SIGN_SCRIPT}" "%1"' = 0
!endif

!define MUI_ABORTWARNING
!ifdef ICON
  !define MUI_ICON "${ICON}"
  !define MUI_UNICON "${ICON}"
!endif

!define MUI_WELCOMEPAGE_TITLE "Accélération NVIDIA pour ${APP_NAME}"
!define MUI_WELCOMEPAGE_TEXT "Ce module complémentaire permet à ${APP_NAME} d'utiliser une carte graphique NVIDIA pour reconnaître la parole plus vite. Il ajoute les bibliothèques NVIDIA CUDA et cuDNN dans le dossier de ${APP_NAME}.$\r$\n$\r$\nIl faut un pilote NVIDIA récent (compatible CUDA 13). Sans carte NVIDIA, ${APP_NAME} fonctionne normalement sans ce module.$\r$\n$\r$\nCliquez sur Suivant pour continuer."
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_INSTFILES
!define MUI_FINISHPAGE_TEXT "L'accélération NVIDIA est installée. Elle sera utilisée au prochain démarrage de ${APP_NAME}.$\r$\n$\r$\nPour vérifier : « therapy-app doctor » (ligne « cuda »)."
!define MUI_FINISHPAGE_SHOWREADME "$INSTDIR\THIRD_PARTY_LICENSES.txt"
!define MUI_FINISHPAGE_SHOWREADME_TEXT "Afficher les licences des composants"
!define MUI_FINISHPAGE_SHOWREADME_NOTCHECKED
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "French"

Var MainDir

Function .onInit
  SetShellVarContext all
  ${IfNot} ${RunningX64}
    MessageBox MB_ICONSTOP "${APP_NAME} nécessite une version 64 bits de Windows." /SD IDOK
    SetErrorLevel 2
    Abort
  ${EndIf}
  ReadRegStr $MainDir HKLM "${MAIN_KEY}" "InstallLocation"
  ${If} $MainDir == ""
  ${OrIfNot} ${FileExists} "$MainDir\python\python.exe"
    MessageBox MB_ICONSTOP "${APP_NAME} n'est pas installé sur cet ordinateur.$\r$\n$\r$\nInstallez d'abord ${APP_NAME} (TherapyApp-Setup-${VERSION}.exe), puis relancez l'installation de l'accélération NVIDIA." /SD IDOK
    SetErrorLevel 4
    Abort
  ${EndIf}
  ; Always beside the program, where the app looks (a /D= given is ignored).
  StrCpy $INSTDIR "$MainDir\${GPU_DIR_NAME}"
FunctionEnd

Section "Install"
  SetShellVarContext all
  ${If} ${FileExists} "$INSTDIR\bin\*.*"
    ; Reinstall or update: replace every DLL so that none of the older pack stays.
    DetailPrint "Remplacement de l'accélération NVIDIA installée…"
    Delete "$INSTDIR\gpu-pack.json"
    ClearErrors
    Rename "$INSTDIR\bin" "$INSTDIR\bin.old"
    ${If} ${Errors}
      MessageBox MB_ICONSTOP "${APP_NAME} est peut-être encore ouvert : fermez-le puis relancez l'installation." /SD IDOK
      SetErrorLevel 2
      Abort
    ${EndIf}
    RMDir /r "$INSTDIR\bin.old"
  ${EndIf}

  DetailPrint "Copie des bibliothèques NVIDIA (environ 1,3 Go)…"
  SetOutPath "$INSTDIR"
  File /r "${PACK}/bin"
  File "${PACK}/THIRD_PARTY_LICENSES.txt"
  ; Last: the app uses the pack only once its manifest is there.
  File "${PACK}/gpu-pack.json"

  WriteUninstaller "$INSTDIR\${UNINSTALLER}"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayName" "${PACK_NAME}"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKLM "${UNINST_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKLM "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKLM "${UNINST_KEY}" "UninstallString" '"$INSTDIR\${UNINSTALLER}"'
  WriteRegStr HKLM "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\${UNINSTALLER}" /S'
  WriteRegStr HKLM "${UNINST_KEY}" "Comments" "Bibliothèques NVIDIA CUDA et cuDNN pour ${APP_NAME}"
  !ifdef ICON
    WriteRegStr HKLM "${UNINST_KEY}" "DisplayIcon" "$MainDir\therapy_app.ico"
  !endif
  WriteRegDWORD HKLM "${UNINST_KEY}" "EstimatedSize" ${INSTALLED_KB}
  WriteRegDWORD HKLM "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKLM "${UNINST_KEY}" "NoRepair" 1
SectionEnd

; ---------------------------------------------------------------- uninstaller

Function un.onInit
  SetShellVarContext all
FunctionEnd

Section "un.Install"
  SetShellVarContext all
  ; First the manifest: without it the app no longer uses the folder.
  Delete "$INSTDIR\gpu-pack.json"
  RMDir /r "$INSTDIR\bin"
  ${If} ${FileExists} "$INSTDIR\bin\*.*"
    MessageBox MB_ICONSTOP "${APP_NAME} est peut-être encore ouvert : fermez-le puis relancez la désinstallation." /SD IDOK
    SetErrorLevel 2
    Abort
  ${EndIf}
  RMDir /r "$INSTDIR\bin.old"
  Delete "$INSTDIR\THIRD_PARTY_LICENSES.txt"
  Delete "$INSTDIR\${UNINSTALLER}"
  RMDir "$INSTDIR"
  DeleteRegKey HKLM "${UNINST_KEY}"
SectionEnd
