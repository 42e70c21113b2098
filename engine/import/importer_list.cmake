# The importers of engine/import/importer_list.h, read the way the C++ side expands them:
# nf_importer_list(FUNCTIONS FILES) sets FUNCTIONS to every importer's function name, in the list's
# order, and FILES to the source files that define them (without extension, each once);
# nf_importer_target(FUNCTION VAR) sets VAR to the fuzz target's name (pageFragTest ->
# import_page_frag_test).
function(nf_importer_target function var)
  string(REGEX REPLACE "([A-Z])" "_\\1" snake "${function}")
  string(TOLOWER "import_${snake}" snake)
  set(${var} ${snake} PARENT_SCOPE)
endfunction()

function(nf_importer_list functions_var files_var)
  set(list_file ${PROJECT_SOURCE_DIR}/engine/import/importer_list.h)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${list_file})
  file(READ ${list_file} text)
  string(REGEX MATCHALL "\n *X\\([^)]*\\)" entries "${text}")
  set(functions "")
  set(files "")
  foreach(entry IN LISTS entries)
    if(NOT entry MATCHES "^\n *X\\(([A-Za-z0-9]+), *([a-z0-9_]+)\\)$")
      message(FATAL_ERROR "importer_list.h: cannot read the entry '${entry}'")
    endif()
    list(APPEND functions ${CMAKE_MATCH_1})
    list(APPEND files ${CMAKE_MATCH_2})
  endforeach()
  list(REMOVE_DUPLICATES files)
  set(${functions_var} ${functions} PARENT_SCOPE)
  set(${files_var} ${files} PARENT_SCOPE)
endfunction()
