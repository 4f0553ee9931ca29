# `cpack -G DEB` in a build folder: beamscope_<version>_amd64.deb with its
# dependencies computed from the binaries (dpkg-shlibdeps). packaging/check-package.sh
# builds it, checks it with lintian, installs it and tries the installed programs.

set(CPACK_PACKAGE_NAME beamscope)
set(CPACK_PACKAGE_VENDOR "Beamscope developers")
set(CPACK_PACKAGE_CONTACT "Beamscope developers <maintainers@beamscope.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "explorer for Halide's learned GPU autoscheduler")
set(CPACK_PACKAGE_DESCRIPTION
    "Beamscope is a desktop explorer (Qt) and a command-line tool for Halide's
learned GPU autoscheduler (Anderson2021). It inspects, validates, diffs and
converts the cost model's weights, runs the beam search and shows its tree
(loop nests, schedule features, cost terms), measures schedules on CUDA or
OpenCL, and retrains the cost model on samples measured on the local GPU.
It includes an autoscheduler plugin for Halide 14 generators with a CMake
package (find_package(Beamscope)) and Halide's shipped weights files.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Not seen by shlibdeps: the bench compiles and links pipelines with the C
# compiler (cc), the icons need Qt's SVG plugin, and OpenCL measurements
# need an ICD loader and a device.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "gcc | c-compiler, libqt6svg6")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ocl-icd-libopencl1, pocl-opencl-icd | opencl-icd, libhalide14-0-dev")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
