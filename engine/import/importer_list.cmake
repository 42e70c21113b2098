# The importers of engine/import/importer_list.h, read the way the C++ side expands them
# (nf_read_x_list, top CMakeLists.txt):
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
  nf_read_x_list(engine/import/importer_list.h "([A-Za-z0-9]+), *([a-z0-9_]+)" functions files)
  list(REMOVE_DUPLICATES files)
  set(${functions_var} ${functions} PARENT_SCOPE)
  set(${files_var} ${files} PARENT_SCOPE)
endfunction()
