# Thin wrappers so that every part of mp is declared the same way.
#
# All MLIR-based code links against the single shared libMLIR.so: a tool links
# in under a second and no command-line option is registered twice. LLVM
# Support comes from libLLVM.so in the same way.

# add_mp_library(name sources... [DEPENDS targets...])
function(add_mp_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
endfunction()

# add_mp_tool(name sources... [LINK_LIBS libs...])
function(add_mp_tool name)
  cmake_parse_arguments(ARG "" "" "LINK_LIBS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS} MLIR LLVM)
endfunction()
