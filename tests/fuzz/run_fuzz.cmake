# Runs one fuzz target for SECONDS over a copy of its seeds, so the seeds in the source tree stay as
# they are; new inputs and any crash land under WORK. CORPUS is a list of seed directories (one may be
# absent); only their files are seeds.
#   cmake -DFUZZER=exe "-DCORPUS=dir;dir" -DWORK=dir -DSECONDS=n -DRSS_MB=n [-DDICT=file] -P run_fuzz.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/artifacts)
foreach(dir IN LISTS CORPUS)
  file(GLOB seeds LIST_DIRECTORIES false ${dir}/*)
  if(seeds)
    file(COPY ${seeds} DESTINATION ${WORK}/corpus)
  endif()
endforeach()
set(args -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=${RSS_MB} -print_final_stats=1
         -artifact_prefix=${WORK}/artifacts/)
if(DICT)
  list(APPEND args -dict=${DICT})
endif()
execute_process(COMMAND ${FUZZER} ${args} ${WORK}/corpus RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(GLOB found ${WORK}/artifacts/*)
  message(FATAL_ERROR "${FUZZER} failed (${rc}); the input is kept in: ${found}")
endif()
