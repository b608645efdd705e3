# cmake -DWSIM=<wsim> -DBINARY=<choice_fuzz> -DDICT=<choice.dict> -DOUT=<dir> -DTIMEOUT=<s>
#       -P choice_targets.cmake
# For every line "NAME KIND GATE MAX_LEN SYSTEM BUGS" of `wsim list --fuzz-targets` (the targets the
# systems declare, sim/run/system.h): OUT/NAME, a hard link to (or copy of) BINARY, which runs
# the target it is named after, and OUT/NAME.dict, OUT/NAME.options. Targets no longer declared
# lose their files (a .options file is what .clusterfuzzlite/build.sh copies).
cmake_minimum_required(VERSION 3.25)
foreach(var WSIM BINARY DICT OUT TIMEOUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "choice_targets.cmake: -D${var}=... is required")
  endif()
endforeach()
execute_process(COMMAND ${WSIM} list --fuzz-targets OUTPUT_VARIABLE listing
                RESULT_VARIABLE status ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${WSIM} list --fuzz-targets failed (${status}): ${errors}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(declared "")
foreach(line ${lines})
  string(REPLACE " " ";" fields "${line}")
  list(LENGTH fields count)
  if(NOT count EQUAL 6)
    message(FATAL_ERROR "wsim list --fuzz-targets: bad line '${line}'")
  endif()
  list(GET fields 0 name)
  list(GET fields 3 max_len)
  if(NOT name MATCHES "^[A-Za-z0-9_]+$" OR NOT max_len MATCHES "^[0-9]+$")
    message(FATAL_ERROR "wsim list --fuzz-targets: bad line '${line}'")
  endif()
  list(APPEND declared ${name})
  file(REMOVE ${OUT}/${name})
  file(CREATE_LINK ${BINARY} ${OUT}/${name} COPY_ON_ERROR)
  file(COPY_FILE ${DICT} ${OUT}/${name}.dict ONLY_IF_DIFFERENT)
  # len_control = 0: libFuzzer tries inputs up to max_len at once instead of growing them slowly.
  file(WRITE ${OUT}/${name}.options.new
       "# choice target\n[libfuzzer]\nmax_len = ${max_len}\nlen_control = 0\ntimeout = ${TIMEOUT}\n"
       "dict = ${name}.dict\n")
  file(COPY_FILE ${OUT}/${name}.options.new ${OUT}/${name}.options ONLY_IF_DIFFERENT)
  file(REMOVE ${OUT}/${name}.options.new)
endforeach()
list(LENGTH declared declared_count)
if(declared_count EQUAL 0)
  message(FATAL_ERROR "wsim list --fuzz-targets: no target declared")
endif()
# Stale targets: an .options file whose binary is a link to choice_fuzz no longer declared.
file(GLOB options_files ${OUT}/*.options)
foreach(options ${options_files})
  get_filename_component(name ${options} NAME_WE)
  file(STRINGS ${options} marker REGEX "^# choice target$")
  if(marker AND NOT name IN_LIST declared)
    file(REMOVE ${OUT}/${name} ${OUT}/${name}.dict ${options})
  endif()
endforeach()
