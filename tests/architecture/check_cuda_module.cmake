# libmrwb_cuda.so carries its own copy of the core code it calls, and the programs export theirs, so every
# such call resolves to the program's copy (one set of registries). A global object defined in the module
# with a constructor would be constructed a second time over the program's object of the same name; so the
# module may export no strong data symbols (nm: B, D, G, S), only functions, weak and unique ones.
# Usage: cmake -DMODULE=libmrwb_cuda.so -P check_cuda_module.cmake
execute_process(COMMAND nm -D --defined-only "${MODULE}" OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm -D ${MODULE} failed (${rc})")
endif()
string(REGEX MATCHALL "[0-9a-f]+ [BDGS] [^\n]+" strong "${symbols}")
list(LENGTH strong n)
if(n GREATER 0)
  list(JOIN strong "\n  " lines)
  message(FATAL_ERROR "${MODULE}: ${n} strong data symbol(s), each constructed again over the program's:\n  ${lines}")
endif()
string(REGEX MATCHALL "\n[0-9a-f]+ T " functions "\n${symbols}")
list(LENGTH functions nf)
message(STATUS "${MODULE}: no strong data symbols; ${nf} functions exported")
