; Setup program for Windows x64: per-machine install, French UI, silent mode.
;
; Built by installer/windows/build.sh, which defines VERSION, VI_VERSION,
; BUNDLE (the staged folder), OUTFILE, INSTALLED_KB, COMPRESSOR and, when
; available, ICON and SIGN_SCRIPT.
;
; Command line (IT deployment):
;   TherapyApp-Setup-X.Y.Z.exe /S [/D=C:\chemin]     silent install (/D last, no quotes)
;   "C:\Program Files\TherapyApp\uninstall.exe" /S            silent uninstall, keeps data
;   "C:\Program Files\TherapyApp\uninstall.exe" /S /PURGE     ... and deletes this account's data
; An upgrade replaces python\ only: the GPU pack in gpu\ and the voice pack in voice\ stay; uninstalling removes them too.
; Exit codes: 0 done, 1 cancelled, 2 error, 3 a newer version is installed (silent).

Unicode true
Target amd64-unicode
ManifestDPIAware true
RequestExecutionLevel admin
SetCompressor /SOLID ${COMPRESSOR}

!define APP_NAME "Orthophonie"
!define APP_ID "TherapyApp"
!define PUBLISHER "Projet TherapyApp"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP_ID}"
; The GPU pack (therapy_app_gpu.nsi; therapy_app.gpu_pack looks in <install dir>\gpu).
!define GPU_UNINST_KEY "${UNINST_KEY}-GPU"
!define GPU_DIR_NAME "gpu"
; The voice pack (therapy_app_voice.nsi; therapy_app.voice_pack looks in <install dir>\voice).
!define VOICE_UNINST_KEY "${UNINST_KEY}-Voice"
!define VOICE_DIR_NAME "voice"
; Patient data: therapy_app.paths.user_data_dir() on Windows.
!define DATA_DIR_NAME "therapy_app"
!define GUI_ARGS "-m therapy_app.gui.app"

!include "MUI2.nsh"
!include "LogicLib.nsh"
!include "FileFunc.nsh"
!include "WordFunc.nsh"
!include "x64.nsh"
!include "Sections.nsh"

Name "${APP_NAME}"
OutFile "${OUTFILE}"
InstallDir "$PROGRAMFILES64\${APP_ID}"
InstallDirRegKey HKLM "${UNINST_KEY}" "InstallLocation"
BrandingText "${APP_NAME} ${VERSION}"

VIProductVersion "${VI_VERSION}"
VIAddVersionKey /LANG=1036 "ProductName" "${APP_NAME}"
VIAddVersionKey /LANG=1036 "FileDescription" "Installation de ${APP_NAME}"
VIAddVersionKey /LANG=1036 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=1036 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=1036 "CompanyName" "${PUBLISHER}"
VIAddVersionKey /LANG=1036 "LegalCopyright" "Licence MIT"

!ifdef SIGN_SCRIPT
  ; Sign the uninstaller while it is being embedded, and the setup itself.
  !uninstfinalize '"${SIGN_SCRIPT}" "%1"' = 0
  !finalize '"${SIGN_SCRIPT}" "%1"' = 0
!endif

!define MUI_ABORTWARNING
!ifdef ICON
  !define MUI_ICON "${ICON}"
  !define MUI_UNICON "${ICON}"
!endif

!define MUI_WELCOMEPAGE_TEXT "Cet assistant va installer ${APP_NAME} ${VERSION}, le logiciel d'exercices de parole pour les personnes aphasiques.$\r$\n$\r$\nTout fonctionne sur cet ordinateur, sans connexion Internet. Les données des patients restent dans le dossier de chaque compte Windows et sont conservées lors d'une mise à jour.$\r$\n$\r$\nCliquez sur Suivant pour continuer."
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!define MUI_FINISHPAGE_TEXT "${APP_NAME} est installé.$\r$\n$\r$\nLancez-le depuis le raccourci « ${APP_NAME} » du bureau ou du menu Démarrer."
!define MUI_FINISHPAGE_SHOWREADME "$INSTDIR\THIRD_PARTY_LICENSES.txt"
!define MUI_FINISHPAGE_SHOWREADME_TEXT "Afficher les licences des composants"
!define MUI_FINISHPAGE_SHOWREADME_NOTCHECKED
!insertmacro MUI_PAGE_FINISH

!define MUI_UNCOMPONENTSPAGE_TEXT_TOP "Le programme va être désinstallé. Les données des patients (dossiers, séances, enregistrements) sont conservées, sauf si vous cochez la case ci-dessous."
!define MUI_UNCOMPONENTSPAGE_NODESC
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_COMPONENTS
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "French"

Var OldVersion

Function .onInit
  SetShellVarContext all
  ${IfNot} ${RunningX64}
    MessageBox MB_ICONSTOP "${APP_NAME} nécessite une version 64 bits de Windows." /SD IDOK
    SetErrorLevel 2
    Abort
  ${EndIf}
  ReadRegStr $OldVersion HKLM "${UNINST_KEY}" "DisplayVersion"
  ${If} $OldVersion != ""
    ; 0: same version, 1: installed one is newer, 2: this one is newer.
    ${VersionCompare} "$OldVersion" "${VERSION}" $0
    ${If} $0 == 1
      ${If} ${Silent}
        SetErrorLevel 3
        Abort
      ${EndIf}
      MessageBox MB_YESNO|MB_ICONEXCLAMATION "Une version plus récente de ${APP_NAME} ($OldVersion) est déjà installée.$\r$\nSes données pourraient ne pas s'ouvrir avec la version ${VERSION}.$\r$\n$\r$\nInstaller quand même la version ${VERSION} ?" IDYES downgrade_ok
      SetErrorLevel 3
      Abort
      downgrade_ok:
    ${EndIf}
  ${EndIf}
FunctionEnd

Section "Install"
  SetShellVarContext all
  SetOutPath "$INSTDIR"
  ${If} ${FileExists} "$INSTDIR\python\*.*"
    ; Upgrade or repair: replace the whole runtime so no file of the older
    ; version stays behind. Patient data is elsewhere and is not touched.
    DetailPrint "Remplacement de la version installée $OldVersion…"
    ClearErrors
    Rename "$INSTDIR\python" "$INSTDIR\python.old"
    ${If} ${Errors}
      MessageBox MB_ICONSTOP "${APP_NAME} est peut-être encore ouvert : fermez-le puis relancez l'installation." /SD IDOK
      SetErrorLevel 2
      Abort
    ${EndIf}
    RMDir /r "$INSTDIR\python.old"
  ${EndIf}

  DetailPrint "Copie des fichiers…"
  File /r "${BUNDLE}/python"
  File "${BUNDLE}/therapy-app.cmd"
  File "${BUNDLE}/THIRD_PARTY_LICENSES.txt"
  !ifdef ICON
    File "${BUNDLE}/therapy_app.ico"
    !define SHORTCUT_ICON "$INSTDIR\therapy_app.ico"
  !else
    !define SHORTCUT_ICON "$INSTDIR\python\pythonw.exe"
  !endif

  ; Program Files is read-only for users: compile the bytecode once here so
  ; that every start does not recompile the app from source.
  DetailPrint "Préparation du programme (compilation)…"
  nsExec::ExecToLog '"$INSTDIR\python\python.exe" -m compileall -q "$INSTDIR\python\Lib\site-packages"'
  Pop $0
  DetailPrint "compileall: $0"

  CreateShortCut "$SMPROGRAMS\${APP_NAME}.lnk" "$INSTDIR\python\pythonw.exe" "${GUI_ARGS}" \
    "${SHORTCUT_ICON}" 0 SW_SHOWNORMAL "" "Exercices de parole (aphasie)"
  CreateShortCut "$DESKTOP\${APP_NAME}.lnk" "$INSTDIR\python\pythonw.exe" "${GUI_ARGS}" \
    "${SHORTCUT_ICON}" 0 SW_SHOWNORMAL "" "Exercices de parole (aphasie)"

  WriteUninstaller "$INSTDIR\uninstall.exe"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayName" "${APP_NAME} – exercices de parole"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKLM "${UNINST_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayIcon" "${SHORTCUT_ICON}"
  WriteRegStr HKLM "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKLM "${UNINST_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKLM "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKLM "${UNINST_KEY}" "EstimatedSize" ${INSTALLED_KB}
  WriteRegDWORD HKLM "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKLM "${UNINST_KEY}" "NoRepair" 1
SectionEnd

; ---------------------------------------------------------------- uninstaller

Section "-un.Programme"
  SetShellVarContext all
  Delete "$SMPROGRAMS\${APP_NAME}.lnk"
  Delete "$DESKTOP\${APP_NAME}.lnk"
  ; Only what the setup put there: a folder chosen by hand may hold other files.
  ; The optional GPU pack (TherapyApp-GPU-*.exe) has its own folder, kept when
  ; the setup replaces python\ on an upgrade; it goes with the program.
  RMDir /r "$INSTDIR\${GPU_DIR_NAME}"
  DeleteRegKey HKLM "${GPU_UNINST_KEY}"
  RMDir /r "$INSTDIR\${VOICE_DIR_NAME}"
  DeleteRegKey HKLM "${VOICE_UNINST_KEY}"
  RMDir /r "$INSTDIR\python"
  RMDir /r "$INSTDIR\python.old"
  Delete "$INSTDIR\therapy-app.cmd"
  Delete "$INSTDIR\THIRD_PARTY_LICENSES.txt"
  Delete "$INSTDIR\therapy_app.ico"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKLM "${UNINST_KEY}"
SectionEnd

Section /o "un.Supprimer aussi les données des patients de ce compte Windows" SecPurge
  ; The data of the account running the uninstaller; other accounts keep theirs.
  SetShellVarContext current
  ${IfNot} ${Silent}
    MessageBox MB_YESNO|MB_ICONEXCLAMATION|MB_DEFBUTTON2 "Les dossiers des patients, leurs séances et leurs enregistrements seront effacés définitivement :$\r$\n$LOCALAPPDATA\${DATA_DIR_NAME}$\r$\n$\r$\nEffacer ces données ?" IDYES purge_ok
    Goto done
    purge_ok:
  ${EndIf}
  DetailPrint "Suppression des données : $LOCALAPPDATA\${DATA_DIR_NAME}"
  RMDir /r "$LOCALAPPDATA\${DATA_DIR_NAME}"
  done:
SectionEnd

Function un.onInit
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/PURGE" $R1
  ${IfNot} ${Errors}
    !insertmacro SelectSection ${SecPurge}
  ${EndIf}
FunctionEnd
