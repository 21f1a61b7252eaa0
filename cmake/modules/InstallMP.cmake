# Install rules and the two CMake packages a host compiler or application
# finds with find_package (docs/embedding.md):
#   mpRuntime  - mp::mp_runtime (C and C++ API, no MLIR) and mp::mp_plan
#   mpCompiler - the train and mp dialects, the precision interface and its
#                upstream models, the passes and buildMixedPrecisionPipeline
#                (mp::MPInitAll pulls in all of them), the plan lowering
# plus mp-opt, mp-compile, mp-run and the mlir-opt plugin MPPlugin.so.
include(CMakePackageConfigHelpers)
set(mpPackageDir ${CMAKE_INSTALL_LIBDIR}/cmake)

install(TARGETS mp_runtime mp_plan EXPORT mpRuntimeTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/mp/runtime
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mp)
install(TARGETS mp-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT mpRuntimeTargets NAMESPACE mp::
  DESTINATION ${mpPackageDir}/mpRuntime)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/mpRuntimeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/mpRuntimeConfig.cmake
  INSTALL_DESTINATION ${mpPackageDir}/mpRuntime)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/mpRuntimeConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/mpRuntimeConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/mpRuntimeConfigVersion.cmake
  DESTINATION ${mpPackageDir}/mpRuntime)

if(NOT MP_ENABLE_COMPILER)
  return()
endif()

set(mpCompilerLibraries MPInterfaces MPAnalysis MPMPDialect MPTrainDialect
    MPTransforms MPExternalModels MPInitAll MPTargetPlan MPTargetCpu)
install(TARGETS ${mpCompilerLibraries} EXPORT mpCompilerTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/mp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/mp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc" PATTERN "CMakeFiles" EXCLUDE)
install(TARGETS mp-opt mp-compile RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS MPPlugin LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT mpCompilerTargets NAMESPACE mp::
  DESTINATION ${mpPackageDir}/mpCompiler)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/mpCompilerConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/mpCompilerConfig.cmake
  INSTALL_DESTINATION ${mpPackageDir}/mpCompiler
  PATH_VARS CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/mpCompilerConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/mpCompilerConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/mpCompilerConfigVersion.cmake
  DESTINATION ${mpPackageDir}/mpCompiler)
