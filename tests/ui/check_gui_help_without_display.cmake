# mrwb-gui --help and --version where no display is (DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM unset):
# usage / version on stdout and exit 0, not Qt's "could not connect to display" abort. -DGUI=<mrwb-gui>.
foreach(arg --help --version)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY --unset=QT_QPA_PLATFORM ${GUI} ${arg}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 30)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mrwb-gui ${arg} without a display: exit ${rc}\n${out}${err}")
  endif()
  if(arg STREQUAL "--help")
    set(expected "Usage: [^\n]*mrwb-gui \\[options\\]\n.*--scenario <S.json>")
  else()
    set(expected "^mrwb-gui [0-9]")
  endif()
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "mrwb-gui ${arg} without a display: stdout does not match '${expected}'\n${out}${err}")
  endif()
endforeach()
