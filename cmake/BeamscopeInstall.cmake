# What `cmake --install` puts where (GNU install dirs). An installed Beamscope
# finds its bench worker (libexec/beamscope) and its weights
# (share/beamscope/weights) relative to its own programs, so nothing needs an
# environment variable (core/bench/measurement.h, core/weights/shipped_weights.h).

set(BEAMSCOPE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/Beamscope" CACHE STRING
    "Where find_package(Beamscope) looks, relative to the prefix")

install(TARGETS beamscope-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if (TARGET beamscope)
    install(TARGETS beamscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif ()
if (TARGET beamscope-bench-worker)
    install(TARGETS beamscope-bench-worker RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/beamscope)
endif ()

# The weights, as they are in the tree (weights/README.md says what each is).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/weights/ DESTINATION ${CMAKE_INSTALL_DATADIR}/beamscope/weights
        FILES_MATCHING PATTERN "*.weights" PATTERN "*.md")

# Desktop integration: entry, icons, AppStream metainfo, the MIME type of .weights files.
install(FILES ${PROJECT_SOURCE_DIR}/resources/beamscope.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/resources/beamscope.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${PROJECT_SOURCE_DIR}/resources/beamscope-weights.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
        RENAME beamscope.xml)
install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/beamscope.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
foreach (size IN ITEMS 16 22 24 32 48 64 128 256)
    install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/hicolor/${size}x${size}/apps/beamscope.png
            DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps)
endforeach ()

# Man pages, compressed as Debian policy asks (gzip -n: no time stamp, so reproducible).
find_program(BEAMSCOPE_GZIP gzip REQUIRED)
set(man_pages)
foreach (page IN ITEMS beamscope beamscope-cli)
    set(gz ${PROJECT_BINARY_DIR}/man/${page}.1.gz)
    add_custom_command(OUTPUT ${gz}
                       COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_SOURCE_DIR}/packaging/man/${page}.1
                               ${PROJECT_BINARY_DIR}/man/${page}.1
                       COMMAND ${BEAMSCOPE_GZIP} -9nf ${PROJECT_BINARY_DIR}/man/${page}.1
                       DEPENDS ${PROJECT_SOURCE_DIR}/packaging/man/${page}.1 VERBATIM)
    list(APPEND man_pages ${gz})
endforeach ()
add_custom_target(beamscope_man_pages ALL DEPENDS ${man_pages})
install(FILES ${man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# The copyright file and changelog Debian expects under share/doc/beamscope.
set(changelog_gz ${PROJECT_BINARY_DIR}/doc/changelog.gz)
add_custom_command(OUTPUT ${changelog_gz}
                   COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_SOURCE_DIR}/packaging/debian/changelog
                           ${PROJECT_BINARY_DIR}/doc/changelog
                   COMMAND ${BEAMSCOPE_GZIP} -9nf ${PROJECT_BINARY_DIR}/doc/changelog
                   DEPENDS ${PROJECT_SOURCE_DIR}/packaging/debian/changelog VERBATIM)
add_custom_target(beamscope_changelog ALL DEPENDS ${changelog_gz})
install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright ${changelog_gz}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/beamscope) # the package name, not the project name

# The plugin and the CMake package Halide users find it with:
#   find_package(Beamscope)
#   add_halide_library(f FROM gen AUTOSCHEDULER Beamscope PLUGINS Beamscope::autoschedule)
# It lives in a private folder of the library directory: it is a dlopen'ed
# module, not a library to link against.
if (TARGET beamscope_autoschedule)
    set_target_properties(beamscope_autoschedule PROPERTIES EXPORT_NAME autoschedule)
    install(TARGETS beamscope_autoschedule EXPORT BeamscopeTargets
            LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/beamscope)
    install(EXPORT BeamscopeTargets NAMESPACE Beamscope:: DESTINATION ${BEAMSCOPE_INSTALL_CMAKEDIR})
    include(CMakePackageConfigHelpers)
    configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/BeamscopeConfig.cmake.in
                                  ${PROJECT_BINARY_DIR}/cmake/BeamscopeConfig.cmake
                                  INSTALL_DESTINATION ${BEAMSCOPE_INSTALL_CMAKEDIR}
                                  PATH_VARS CMAKE_INSTALL_DATADIR)
    write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/BeamscopeConfigVersion.cmake
                                     COMPATIBILITY SameMinorVersion)
    install(FILES ${PROJECT_BINARY_DIR}/cmake/BeamscopeConfig.cmake
                  ${PROJECT_BINARY_DIR}/cmake/BeamscopeConfigVersion.cmake
            DESTINATION ${BEAMSCOPE_INSTALL_CMAKEDIR})
endif ()
