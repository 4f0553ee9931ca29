# beamscope_fast_allocator(target): the program allocates through mimalloc.
#
# A beam search makes and frees millions of small objects (regions, feature
# rows, states, candidate schedules). Under glibc's malloc, a beam-32 search of
# conv_layer spent about a third of its time in malloc, free and
# malloc_consolidate; mimalloc (Debian's libmimalloc-dev) cut that search from
# 6.7 s to 4.1 s with the same tree. Linking the shared library replaces malloc
# for the whole process, so only programs take it, never a library: the
# plugin runs inside Halide's own process and keeps that process's allocator.
# The sanitizers bring an allocator of their own, so they leave it out.
find_package(mimalloc 2 CONFIG QUIET)
if (mimalloc_FOUND AND NOT BEAMSCOPE_SANITIZE)
    set(BEAMSCOPE_ALLOCATOR "mimalloc ${mimalloc_VERSION}")
else ()
    set(BEAMSCOPE_ALLOCATOR "system malloc")
    if (NOT BEAMSCOPE_SANITIZE)
        message(WARNING "mimalloc not found (Debian: libmimalloc-dev): searches run on the system malloc, "
                        "about 1.5x slower on small apps")
    endif ()
endif ()

function(beamscope_fast_allocator target)
    if (BEAMSCOPE_ALLOCATOR MATCHES "^mimalloc")
        # Linking replaces malloc whether or not the program calls mimalloc, so
        # keep a linker that defaults to --as-needed from dropping it. The one
        # call the program makes (mimalloc_tuning.cpp) sets the allocator's
        # options before main.
        target_link_options(${target} PRIVATE "LINKER:--no-as-needed")
        target_link_libraries(${target} PRIVATE mimalloc)
        target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/cmake/mimalloc_tuning.cpp)
        target_compile_definitions(${target} PRIVATE BEAMSCOPE_ALLOCATOR="${BEAMSCOPE_ALLOCATOR}")
    else ()
        target_compile_definitions(${target} PRIVATE BEAMSCOPE_ALLOCATOR="system malloc")
    endif ()
endfunction()
