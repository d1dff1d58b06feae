# SPDX-License-Identifier: MIT
# Writes a gzipped man page from a program's own --help and --version, so the page never drifts from the
# program: NAME from the arguments, the usage text verbatim, then an optional roff
# fragment (FILES, ENVIRONMENT, ...) and SEE ALSO.
#   cmake -DPROGRAM=path -DNAME=tilescope-cli -DSUMMARY="..." [-DEXTRA=fragment.roff] [-DSEE_ALSO="a (1), b (1)"]
#         -DOUTPUT=.../tilescope-cli.1.gz -P manpage.cmake
foreach(var PROGRAM NAME SUMMARY OUTPUT)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "manpage.cmake: ${var} is not set")
    endif()
endforeach()

# Headless and quiet: the GUI's --help needs a Qt platform, a sanitizer build must not fail on leaks.
set(ENV{QT_QPA_PLATFORM} offscreen)
set(ENV{ASAN_OPTIONS} detect_leaks=0)
execute_process(COMMAND ${PROGRAM} --help OUTPUT_VARIABLE help ERROR_VARIABLE help_err RESULT_VARIABLE help_result)
if(NOT help_result EQUAL 0 OR help STREQUAL "")
    message(FATAL_ERROR "manpage.cmake: '${PROGRAM} --help' failed (${help_result}): ${help_err}")
endif()
execute_process(COMMAND ${PROGRAM} --version OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE version_result)
if(NOT version_result EQUAL 0)
    message(FATAL_ERROR "manpage.cmake: '${PROGRAM} --version' failed (${version_result})")
endif()
# "tilescope-cli 0.1.0 (commit ...)" or Qt's "TileScope 0.1.0 (commit ...)": the version is the second word.
string(REGEX MATCH "[0-9]+\\.[0-9]+(\\.[0-9]+)?" version_number "${version}")

# Qt prints the path it was started as; the page names the installed command.
string(REPLACE "${PROGRAM}" "${NAME}" help "${help}")
# Verbatim text in roff: backslashes escaped, a line starting with '.' or ''' is not a request, and '-'
# is a real hyphen-minus (what the user types).
string(REPLACE "\\" "\\e" help "${help}")
string(REPLACE "-" "\\-" help "${help}")
string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")

string(TOUPPER "${NAME}" title)
string(REPLACE "-" "\\-" name_roff "${NAME}")
set(page ".TH ${title} 1 \"\" \"TileScope ${version_number}\" \"User Commands\"\n")
string(APPEND page ".SH NAME\n${name_roff} \\- ${SUMMARY}\n")
string(APPEND page ".SH DESCRIPTION\nThe usage below is what\n.B ${name_roff} \\-\\-help\nprints.\n")
string(APPEND page ".SH USAGE\n.nf\n${help}.fi\n")
if(DEFINED EXTRA AND NOT EXTRA STREQUAL "")
    file(READ ${EXTRA} extra)
    string(APPEND page "${extra}")
endif()
if(DEFINED SEE_ALSO AND NOT SEE_ALSO STREQUAL "")
    string(APPEND page ".SH SEE ALSO\n${SEE_ALSO}\n")
endif()

get_filename_component(dir ${OUTPUT} DIRECTORY)
string(REGEX REPLACE "\\.gz$" "" plain ${OUTPUT})
file(WRITE ${plain} "${page}")
# Debian wants man pages compressed with gzip -9n (no name or time stamp in the header).
execute_process(COMMAND gzip -9nf ${plain} RESULT_VARIABLE gzip_result)
if(NOT gzip_result EQUAL 0)
    message(FATAL_ERROR "manpage.cmake: gzip failed on ${plain}")
endif()
