# `cmake --install <build> --prefix P`: the programs into P/bin (the CUDA module into P/lib/mrwb), the shipped scenarios into
# P/share/mrwb/phantoms, and with the GUI its desktop integration (hicolor icons, .desktop file) into P/share.
# Included from the top-level CMakeLists.txt after the targets exist.
include(GNUInstallDirs)

set(MRWB_INSTALL_PHANTOMS_DIR ${CMAKE_INSTALL_DATADIR}/mrwb/phantoms)

install(TARGETS mrwb mrwb-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The CUDA module (core: base/cuda_backends.hpp) in lib/mrwb/, found by the programs relative to themselves.
if(MRWB_CUDA)
  install(TARGETS mrwb_cuda LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/mrwb)
  file(RELATIVE_PATH _mrwb_module_from_bin ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR}/mrwb/libmrwb_cuda.so)
  target_compile_definitions(mrwb_base PRIVATE MRWB_INSTALLED_CUDA_MODULE="${_mrwb_module_from_bin}")
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/phantoms/ DESTINATION ${MRWB_INSTALL_PHANTOMS_DIR}
        FILES_MATCHING PATTERN "*.json")

# An installed program finds the scenarios relative to itself, so the prefix can move (and a
# --prefix given at install time works); the source tree's phantoms/ stays the fallback for the build.
file(RELATIVE_PATH _mrwb_phantoms_from_bin ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_DATADIR}/mrwb/phantoms)
target_compile_definitions(mrwb PRIVATE MRWB_INSTALLED_PHANTOMS_DIR="${_mrwb_phantoms_from_bin}")
target_compile_definitions(mrwb-bench PRIVATE MRWB_INSTALLED_PHANTOMS_DIR="${_mrwb_phantoms_from_bin}")

if(MRWB_GUI)
  install(TARGETS mrwb-gui RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  target_compile_definitions(mrwb_ui PRIVATE MRWB_INSTALLED_PHANTOMS_DIR="${_mrwb_phantoms_from_bin}")

  # Desktop integration for mrwb-gui: the freedesktop icon theme and menu entry.
  set(_mrwb_icons ${PROJECT_SOURCE_DIR}/resources/icons/app)
  foreach(size 16 32 48 64 128 256)
    install(FILES ${_mrwb_icons}/mrwb-${size}.png RENAME mrwb.png
            DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps)
  endforeach()
  install(FILES ${_mrwb_icons}/mrwb.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/mrwb-gui.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
endif()
