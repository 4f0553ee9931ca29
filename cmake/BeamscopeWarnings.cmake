# beamscope_warnings(target): the project's warning set, errors in CI.
function(beamscope_warnings target)
    # -Wshadow=local is GCC's spelling; clang (the ci-asan preset) calls it -Wshadow-uncaptured-local.
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic
                           $<IF:$<CXX_COMPILER_ID:Clang>,-Wshadow-uncaptured-local,-Wshadow=local>
                           -Wnon-virtual-dtor -Wcast-align -Wunused -Woverloaded-virtual
                           -Wnull-dereference -Wimplicit-fallthrough)
    if (BEAMSCOPE_WERROR)
        target_compile_options(${target} PRIVATE -Werror)
    endif ()
endfunction()
