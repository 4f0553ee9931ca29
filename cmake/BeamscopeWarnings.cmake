# beamscope_warnings(target): the project's warning set, errors in CI.
function(beamscope_warnings target)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local
                           -Wnon-virtual-dtor -Wcast-align -Wunused -Woverloaded-virtual
                           -Wnull-dereference -Wimplicit-fallthrough)
    if (BEAMSCOPE_WERROR)
        target_compile_options(${target} PRIVATE -Werror)
    endif ()
endfunction()
