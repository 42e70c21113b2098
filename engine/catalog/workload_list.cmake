# The workloads of engine/catalog/workload_list.h, read the way the C++ side expands them
# (nf_read_x_list, top CMakeLists.txt):
# nf_workload_list(FUNCTIONS MEASURED) sets FUNCTIONS to every workload's function name and
# MEASURED to those of a measured kind (InProcess, Live); nf_workload_file(FUNCTION VAR) sets VAR to
# the function's source file name without extension (indirectCall -> indirect_call).
function(nf_workload_file function var)
  string(REGEX REPLACE "([A-Z])" "_\\1" snake "${function}")
  string(TOLOWER "${snake}" snake)
  set(${var} ${snake} PARENT_SCOPE)
endfunction()

function(nf_workload_list all_var measured_var)
  nf_read_x_list(engine/catalog/workload_list.h "([A-Za-z0-9]+), *\"[a-z0-9-]+\", *([A-Za-z]+)" all kinds)
  set(measured "")
  foreach(function kind IN ZIP_LISTS all kinds)
    if(NOT kind STREQUAL "External")
      list(APPEND measured ${function})
    endif()
  endforeach()
  set(${all_var} ${all} PARENT_SCOPE)
  set(${measured_var} ${measured} PARENT_SCOPE)
endfunction()
