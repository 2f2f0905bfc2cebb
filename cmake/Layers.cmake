# Layered libraries (core/ and gpu/): a domain may depend only on domains listed before it.
# mrwb_layer_closure(<tree> <layers list> <name> <out var> DEPS <deps...>)
#   Stops the configuration when <name> is not in <layers> or a dependency is not below it; sets <out var>
#   to the transitive dependencies and records "<name>:<closure>" in the global property
#   MRWB_<TREE>_GRAPH (written to <tree>_layers.txt for tests/architecture).
function(mrwb_layer_closure tree layers name out)
  cmake_parse_arguments(L "" "" "DEPS" ${ARGN})
  string(TOUPPER ${tree} TREE)
  list(FIND layers ${name} rank)
  if(rank LESS 0)
    message(FATAL_ERROR "${tree}/${name}: not a layer of ${tree}/CMakeLists.txt (${layers})")
  endif()
  set(closure "")
  foreach(dep IN LISTS L_DEPS)
    list(FIND layers ${dep} dep_rank)
    if(dep_rank LESS 0 OR NOT dep_rank LESS rank)
      message(FATAL_ERROR "${tree}/${name} may not depend on '${dep}': a domain depends only on layers below it "
                          "(${layers}, lowest first)")
    endif()
    get_property(dep_closure GLOBAL PROPERTY MRWB_${TREE}_DEPS_${dep})
    list(APPEND closure ${dep} ${dep_closure})
  endforeach()
  list(REMOVE_DUPLICATES closure)
  set_property(GLOBAL PROPERTY MRWB_${TREE}_DEPS_${name} "${closure}")
  set_property(GLOBAL APPEND_STRING PROPERTY MRWB_${TREE}_GRAPH "${name}:${closure}\n")
  set(${out} "${closure}" PARENT_SCOPE)
endfunction()

# mrwb_write_layers(<tree>): <build>/<tree>_layers.txt, one "domain:dependencies" per line.
function(mrwb_write_layers tree)
  string(TOUPPER ${tree} TREE)
  get_property(graph GLOBAL PROPERTY MRWB_${TREE}_GRAPH)
  file(WRITE ${PROJECT_BINARY_DIR}/${tree}_layers.txt "${graph}")
endfunction()
