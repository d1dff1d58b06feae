# SPDX-License-Identifier: MIT
# Writes version.cpp (the version and the git commit) at every build, but touches it only when the text
# changes: a new commit recompiles one small file instead of a reconfigure, and the About box never shows
# the commit of an older configure.
#   cmake -DSOURCE_DIR=... -DTEMPLATE=version.cpp.in -DOUTPUT=.../version.cpp -DTILESCOPE_VERSION=0.1.0 -P writeversion.cmake
set(TILESCOPE_COMMIT unknown)
find_program(GIT_EXECUTABLE git)
if(GIT_EXECUTABLE)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                    OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE result)
    if(result EQUAL 0 AND NOT commit STREQUAL "")
        set(TILESCOPE_COMMIT ${commit})
        # Tracked files that differ from the commit (untracked ones, e.g. build folders, do not count).
        execute_process(COMMAND ${GIT_EXECUTABLE} diff --quiet HEAD -- WORKING_DIRECTORY ${SOURCE_DIR}
                        RESULT_VARIABLE dirty ERROR_QUIET)
        if(dirty EQUAL 1)
            string(APPEND TILESCOPE_COMMIT -dirty)
        endif()
    endif()
endif()
# A build folder configured before version.h became a plain source file still holds a generated one beside
# version.cpp, which `#include "version.h"` would find first.
get_filename_component(output_dir ${OUTPUT} DIRECTORY)
file(REMOVE ${output_dir}/version.h)
configure_file(${TEMPLATE} ${OUTPUT}.new @ONLY)
file(COPY_FILE ${OUTPUT}.new ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.new)
