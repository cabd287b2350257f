; Voice pack for Windows x64: what an installed Orthophonie needs to adapt its
; speech recognition to one patient's voice (PyTorch, the trainer therapy_voice,
; the Whisper training weights). The app runs the trainer in a separate process.
;
; Built by installer/windows/build_voice_pack.sh, which defines VERSION,
; VI_VERSION, PACK (the staged folder: lib\, app\, models\, voice-pack.json,
; THIRD_PARTY_LICENSES.txt), OUTFILE, INSTALLED_KB, COMPRESSOR and, when
; available, ICON and SIGN_SCRIPT.
;
; It installs into <main install dir>\voice (read from the main setup's
; uninstall key; /D is ignored), where therapy_app.voice_pack looks. The main
; setup replaces only python\ on an upgrade, so the pack stays (the app then
; reports it as built for another version until the matching pack is installed);
; the main uninstaller removes it (therapy_app.nsi: VOICE_DIR_NAME, VOICE_UNINST_KEY).
;
; Command line (IT deployment):
;   TherapyApp-Voice-X.Y.Z.exe /S                                      silent install
;   "C:\Program Files\TherapyApp\voice\uninstall-voice.exe" /S          silent uninstall
; Exit codes: 0 done, 1 cancelled, 2 error (e.g. the app or a training still
; running), 4 Orthophonie is not installed, 5 another version of Orthophonie is
; installed (silent mode; interactive mode asks).

Unicode true
Target amd64-unicode
ManifestDPIAware true
RequestExecutionLevel admin
SetCompressor /SOLID ${COMPRESSOR}

!define APP_NAME "Orthophonie"
!define APP_ID "TherapyApp"
!define PACK_NAME "${APP_NAME} – adaptation à la voix du patient"
!define PUBLISHER "Projet TherapyApp"
!define MAIN_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP_ID}"
; Both must match therapy_app.nsi (VOICE_UNINST_KEY, VOICE_DIR_NAME) and
; therapy_app.voice_pack (DIR_NAME, MANIFEST).
!define UNINST_KEY "${MAIN_KEY}-Voice"
!define VOICE_DIR_NAME "voice"
!define MANIFEST "voice-pack.json"
!define UNINSTALLER "uninstall-voice.exe"

!include "MUI2.nsh"
!include "LogicLib.nsh"
!include "x64.nsh"

Name "${PACK_NAME}"
OutFile "${OUTFILE}"
InstallDir "$PROGRAMFILES64\${APP_ID}\${VOICE_DIR_NAME}"
BrandingText "${APP_NAME} ${VERSION}"

VIProductVersion "${VI_VERSION}"
VIAddVersionKey /LANG=1036 "ProductName" "${PACK_NAME}"
VIAddVersionKey /LANG=1036 "FileDescription" "Installation de l'adaptation à la voix pour ${APP_NAME}"
VIAddVersionKey /LANG=1036 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=1036 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=1036 "CompanyName" "${PUBLISHER}"
VIAddVersionKey /LANG=1036 "LegalCopyright" "PyTorch, Whisper et autres composants : voir THIRD_PARTY_LICENSES.txt"

!ifdef SIGN_SCRIPT
  !uninstfinalize '"${SIGN_SCRIPT}" "%1"' = 0
  !finalize '"${SIGN_SCRIPT}" "%1"' = 0
!endif

!define MUI_ABORTWARNING
!ifdef ICON
  !define MUI_ICON "${ICON}"
  !define MUI_UNICON "${ICON}"
!endif

!define MUI_WELCOMEPAGE_TITLE "Adaptation à la voix du patient"
!define MUI_WELCOMEPAGE_TEXT "Ce module complémentaire permet à ${APP_NAME} d'apprendre la voix d'un patient à partir de ses enregistrements, pour mieux reconnaître ce qu'il dit. L'apprentissage se fait sur cet ordinateur, sans connexion Internet.$\r$\n$\r$\nIl ajoute environ 600 Mo dans le dossier de ${APP_NAME}. Sans ce module, ${APP_NAME} fonctionne normalement.$\r$\n$\r$\nCliquez sur Suivant pour continuer."
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_INSTFILES
!define MUI_FINISHPAGE_TEXT "L'adaptation à la voix est installée. Elle sera proposée au prochain démarrage de ${APP_NAME}."
!define MUI_FINISHPAGE_SHOWREADME "$INSTDIR\THIRD_PARTY_LICENSES.txt"
!define MUI_FINISHPAGE_SHOWREADME_TEXT "Afficher les licences des composants"
!define MUI_FINISHPAGE_SHOWREADME_NOTCHECKED
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "French"

Var MainDir
Var MainVersion

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
    MessageBox MB_ICONSTOP "${APP_NAME} n'est pas installé sur cet ordinateur.$\r$\n$\r$\nInstallez d'abord ${APP_NAME} (TherapyApp-Setup-${VERSION}.exe), puis relancez l'installation de l'adaptation à la voix." /SD IDOK
    SetErrorLevel 4
    Abort
  ${EndIf}
  ; The trainer imports the app's own modules: it must come from the same version.
  ReadRegStr $MainVersion HKLM "${MAIN_KEY}" "DisplayVersion"
  ${If} $MainVersion != "${VERSION}"
    ${If} ${Silent}
      SetErrorLevel 5
      Abort
    ${EndIf}
    MessageBox MB_YESNO|MB_ICONEXCLAMATION "Ce module est prévu pour ${APP_NAME} ${VERSION}, mais la version installée est $MainVersion : l'adaptation à la voix ne fonctionnera qu'avec le module de la même version.$\r$\n$\r$\nInstaller quand même ?" IDYES version_ok
    SetErrorLevel 5
    Abort
    version_ok:
  ${EndIf}
  ; Always beside the program, where the app looks (a /D= given is ignored).
  StrCpy $INSTDIR "$MainDir\${VOICE_DIR_NAME}"
FunctionEnd

Section "Install"
  SetShellVarContext all
  ${If} ${FileExists} "$INSTDIR\lib\*.*"
    ; Reinstall or update: replace every file so that none of the older pack stays.
    DetailPrint "Remplacement de l'adaptation à la voix installée…"
    ClearErrors
    Rename "$INSTDIR\lib" "$INSTDIR\lib.old"
    ${If} ${Errors}
      MessageBox MB_ICONSTOP "${APP_NAME} ou un apprentissage de voix est peut-être encore en cours : fermez ${APP_NAME} puis relancez l'installation." /SD IDOK
      SetErrorLevel 2
      Abort
    ${EndIf}
    RMDir /r "$INSTDIR\lib.old"
  ${EndIf}
  ; Without its manifest the app no longer starts the trainer from here.
  Delete "$INSTDIR\${MANIFEST}"
  RMDir /r "$INSTDIR\app"
  RMDir /r "$INSTDIR\models"

  DetailPrint "Copie de PyTorch et des données d'apprentissage (environ 600 Mo)…"
  SetOutPath "$INSTDIR"
  File /r "${PACK}/lib"
  File /r "${PACK}/app"
  File /r "${PACK}/models"
  File "${PACK}/THIRD_PARTY_LICENSES.txt"

  ; Program Files is read-only for users: compile the bytecode once here, with
  ; the app's own Python (the one that runs the trainer).
  DetailPrint "Préparation du module (compilation)…"
  nsExec::ExecToLog '"$MainDir\python\python.exe" -m compileall -q "$INSTDIR\lib" "$INSTDIR\app"'
  Pop $0
  DetailPrint "compileall: $0"

  ; Last: the app uses the pack only once its manifest is there.
  SetOutPath "$INSTDIR"
  File "${PACK}/${MANIFEST}"

  WriteUninstaller "$INSTDIR\${UNINSTALLER}"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayName" "${PACK_NAME}"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKLM "${UNINST_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKLM "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKLM "${UNINST_KEY}" "UninstallString" '"$INSTDIR\${UNINSTALLER}"'
  WriteRegStr HKLM "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\${UNINSTALLER}" /S'
  WriteRegStr HKLM "${UNINST_KEY}" "Comments" "PyTorch et données d'apprentissage pour ${APP_NAME}"
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
  Delete "$INSTDIR\${MANIFEST}"
  RMDir /r "$INSTDIR\lib"
  ${If} ${FileExists} "$INSTDIR\lib\*.*"
    MessageBox MB_ICONSTOP "${APP_NAME} ou un apprentissage de voix est peut-être encore en cours : fermez ${APP_NAME} puis relancez la désinstallation." /SD IDOK
    SetErrorLevel 2
    Abort
  ${EndIf}
  RMDir /r "$INSTDIR\lib.old"
  RMDir /r "$INSTDIR\app"
  RMDir /r "$INSTDIR\models"
  Delete "$INSTDIR\THIRD_PARTY_LICENSES.txt"
  Delete "$INSTDIR\${UNINSTALLER}"
  RMDir "$INSTDIR"
  DeleteRegKey HKLM "${UNINST_KEY}"
SectionEnd
