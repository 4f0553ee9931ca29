# The plugin's recorded search: a Beamscope search trace naming the generator, its parameters and target.
if (NOT EXISTS "${TRACE}")
    message(FATAL_ERROR "no search trace at ${TRACE}: beamscope_record_searches() did not take effect")
endif ()
file(STRINGS "${TRACE}" header LIMIT_COUNT 1)
foreach (expected "\"format\":\"beamscope-search-trace\"" "\"generator\":\"edges\"" "\"threshold\":\"0.2\""
                  "bgu.weights\""
                  "\"generator_executable\"" "\"target\":\"" "\"machine_params\"")
    string(FIND "${header}" "${expected}" at)
    if (at EQUAL -1)
        message(FATAL_ERROR "${TRACE}: the header lacks ${expected}:\n${header}")
    endif ()
endforeach ()
message(STATUS "${TRACE}: the search of generator edges, with its parameters and target")
