# Thin wrappers so that every part of mp is declared the same way.
#
# All MLIR-based code links against the single shared libMLIR.so: a tool links
# in under a second and no command-line option is registered twice. LLVM
# Support comes from libLLVM.so in the same way.

# add_mp_library(name sources... [DEPENDS targets...] [LINK_LIBS libs...])
# Static by default; shared with MP_BUILD_SHARED_LIBS=ON. Headers come from
# include/ and the build's include/ (the .h.inc files) in the build tree,
# from the prefix's include/ once installed (docs/embedding.md).
function(add_mp_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  if(MP_BUILD_SHARED_LIBS)
    add_library(${name} SHARED ${ARG_UNPARSED_ARGUMENTS})
  else()
    add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  endif()
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
  # The headers include MLIR's, which need C++17: code that uses them
  # (an installed library's users, whose compiler may default to C++14,
  # clang 14's) gets it from the target.
  target_compile_features(${name} PUBLIC cxx_std_17)
endfunction()

# add_mp_tool(name sources... [LINK_LIBS libs...])
function(add_mp_tool name)
  cmake_parse_arguments(ARG "" "" "LINK_LIBS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS} MLIR LLVM)
endfunction()

# mp_checked_in(NAME GENERATED SOURCE TARGET): SOURCE, a file in the tree,
# is a checked-in copy of GENERATED, which TARGET builds (the runtime builds
# without MLIR, and the docs are read on the web). The ctest generated/NAME
# fails while the two differ; `cmake --build build --target
# mp-update-generated` rewrites every copy (CONTRIBUTING.md, "Add an op").
function(mp_checked_in name generated source target)
  add_test(NAME generated/${name}
           COMMAND ${CMAKE_COMMAND} -E compare_files ${generated} ${source})
  set_property(GLOBAL APPEND PROPERTY MP_CHECKED_IN_COMMANDS
               COMMAND ${CMAKE_COMMAND} -E copy ${generated} ${source})
  set_property(GLOBAL APPEND PROPERTY MP_CHECKED_IN_TARGETS ${target})
endfunction()

# The target that rewrites every checked-in copy; call once, last.
function(mp_add_update_generated_target)
  get_property(commands GLOBAL PROPERTY MP_CHECKED_IN_COMMANDS)
  get_property(targets GLOBAL PROPERTY MP_CHECKED_IN_TARGETS)
  add_custom_target(mp-update-generated ${commands}
    DEPENDS ${targets}
    COMMENT "rewriting the checked-in generated files from the ODS")
endfunction()
