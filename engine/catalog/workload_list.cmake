# The workloads of engine/catalog/workload_list.h, read the way the C++ side expands them:
# nf_workload_list(FUNCTIONS MEASURED) sets FUNCTIONS to every workload's function name and
# MEASURED to those of a measured kind (InProcess, Live); nf_workload_file(FUNCTION VAR) sets VAR to
# the function's source file name without extension (indirectCall -> indirect_call).
function(nf_workload_file function var)
  string(REGEX REPLACE "([A-Z])" "_\\1" snake "${function}")
  string(TOLOWER "${snake}" snake)
  set(${var} ${snake} PARENT_SCOPE)
endfunction()

function(nf_workload_list all_var measured_var)
  set(list_file ${PROJECT_SOURCE_DIR}/engine/catalog/workload_list.h)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${list_file})
  file(READ ${list_file} text)
  string(REGEX MATCHALL "\n *X\\([^)]*\\)" entries "${text}")
  set(all "")
  set(measured "")
  foreach(entry IN LISTS entries)
    if(NOT entry MATCHES "^\n *X\\(([A-Za-z0-9]+), *\"[a-z0-9-]+\", *([A-Za-z]+)\\)$")
      message(FATAL_ERROR "workload_list.h: cannot read the entry '${entry}'")
    endif()
    list(APPEND all ${CMAKE_MATCH_1})
    if(NOT CMAKE_MATCH_2 STREQUAL "External")
      list(APPEND measured ${CMAKE_MATCH_1})
    endif()
  endforeach()
  set(${all_var} ${all} PARENT_SCOPE)
  set(${measured_var} ${measured} PARENT_SCOPE)
endfunction()
