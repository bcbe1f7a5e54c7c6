# Every committed suite file must parse and name valid cases and parameters: --dry-run lists its runs.
file(GLOB suites ${SUITE_DIR}/*.yaml)
if(NOT suites)
  message(FATAL_ERROR "no suite files under ${SUITE_DIR}")
endif()
foreach(suite ${suites})
  execute_process(COMMAND ${DRIVER} --suite ${suite} --out unused --dry-run
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "${suite}: exit ${code}\n${out}${err}")
  endif()
endforeach()
