# Writes OUT with the current git commit (and "-dirty" when the tree has changes), or COMMIT when given
# (-DREPRO_GIT_COMMIT: scripts/device-check passes the commit scripts/device-bundle recorded, since the
# device tool's copy of the tree has no history of its own, or a stale one). A copy without .git and
# without COMMIT takes .device/COMMIT when there is one.
if(COMMIT MATCHES "^[0-9a-f]+(-dirty)?$")
  set(commit "${COMMIT}")
else()
  execute_process(COMMAND git -C ${SRC} rev-parse HEAD OUTPUT_VARIABLE commit
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR commit STREQUAL "")
    set(commit "unknown")
    if(EXISTS ${SRC}/.device/COMMIT)
      file(STRINGS ${SRC}/.device/COMMIT bundled LIMIT_COUNT 1 REGEX "^[0-9a-f]+(-dirty)?$")
      if(bundled)
        set(commit "${bundled}")
      endif()
    endif()
  else()
    execute_process(COMMAND git -C ${SRC} status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE changes ERROR_QUIET)
    if(NOT changes STREQUAL "")
      set(commit "${commit}-dirty")
    endif()
  endif()
endif()
set(text "namespace repro { const char* git_commit() { return \"${commit}\"; } }\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
