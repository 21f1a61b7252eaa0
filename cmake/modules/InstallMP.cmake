# Install rules and the two CMake packages a host compiler or application
# finds with find_package (docs/embedding.md):
#   mpRuntime  - mp::mp_runtime (C and C++ API, no MLIR) and mp::mp_plan
#   mpCompiler - the train and mp dialects, the precision interface and its
#                upstream models, the passes and buildMixedPrecisionPipeline
#                (mp::MPInitAll pulls in all of them), the plan lowering
# plus mp-opt, mp-compile, mp-run and the mlir-opt plugin MPPlugin.so.
include(CMakePackageConfigHelpers)
set(mpPackageDir ${CMAKE_INSTALL_LIBDIR}/cmake)

# mp_install_package(NAME): the export set NAMETargets under the namespace
# mp::, NAMEConfig.cmake from cmake/NAMEConfig.cmake.in (PACKAGE_... paths
# for CMAKE_INSTALL_LIBDIR) and its version file, in lib/cmake/NAME.
function(mp_install_package name)
  set(dir ${mpPackageDir}/${name})
  install(EXPORT ${name}Targets NAMESPACE mp:: DESTINATION ${dir})
  configure_package_config_file(
    ${PROJECT_SOURCE_DIR}/cmake/${name}Config.cmake.in
    ${PROJECT_BINARY_DIR}/cmake/${name}Config.cmake
    INSTALL_DESTINATION ${dir} PATH_VARS CMAKE_INSTALL_LIBDIR)
  write_basic_package_version_file(
    ${PROJECT_BINARY_DIR}/cmake/${name}ConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/cmake/${name}Config.cmake
                ${PROJECT_BINARY_DIR}/cmake/${name}ConfigVersion.cmake
          DESTINATION ${dir})
endfunction()

install(TARGETS mp_runtime mp_plan EXPORT mpRuntimeTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/mp/runtime
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mp)
install(TARGETS mp-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
mp_install_package(mpRuntime)

if(NOT MP_ENABLE_COMPILER)
  return()
endif()

set(mpCompilerLibraries MPVocabulary MPInterfaces MPAnalysis MPMPDialect MPTrainDialect
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
mp_install_package(mpCompiler)
