# radar's libraries in the order the data flows through them: recorded into
# logs, merged into a trace, named by a description, re-run, shown, and
# driven from the `radar` front door. A library may link only libraries of
# its own stage or of earlier ones; every library and program of the
# product must have a stage. Checked when CMake configures the build, and
# again by ctest (`cmake -P` over the edges the configure step wrote).

# One stage a list element, its targets separated by spaces.
set(RADAR_STAGES
  "radar_proto radar_log"                                  # the log format (proto/, radarlog/log/)
  "radar_inject"                                           # the injection scaffold (radarlog/inject/)
  "radar_preload radar_mpi radar_fallback radar_record"    # recording: the interposers (C library, MPI), the fallback recorder, radar record's work
  "radar_trace"                                            # the causal merge (replay-gui/trace/)
  "radar_analysis"                                         # what is asked of a trace (replay-gui/analysis/)
  "radar_netdesc radar-network"                            # netdesc's format and its launcher
  "radar_binding"                                          # netdesc bound to a trace (netdesc/binding/)
  "radar_export"                                           # the trace in other tools' formats (replay-gui/export/)
  "radar_driver radar_rerun_preload radar_rerun_mpi radar-launch"       # the re-run (single-process-driver/)
  "radar_app radar-replay"                                # the replay window (replay-gui/app/)
  "radar_cli radar_commands radar")                        # the front door (radarlog/cli/)

function(radar_stage_of name out)
  set(i 0)
  foreach(stage IN LISTS RADAR_STAGES)
    string(REPLACE " " "|" stage "${stage}")
    if(name MATCHES "^(${stage})$")
      set(${out} ${i} PARENT_SCOPE)
      return()
    endif()
    math(EXPR i "${i} + 1")
  endforeach()
  set(${out} -1 PARENT_SCOPE)
endfunction()

# `edges`: "target|dependency" pairs. Fails with every violation said.
function(radar_check_edges edges)
  set(problems "")
  foreach(edge IN LISTS edges)
    string(REPLACE "|" ";" pair "${edge}")
    list(GET pair 0 from)
    list(LENGTH pair n)
    radar_stage_of(${from} from_stage)
    if(from_stage EQUAL -1)
      string(APPEND problems "\n  ${from} has no stage in tests/architecture/layers.cmake")
      continue()
    endif()
    if(n LESS 2)
      continue()
    endif()
    list(GET pair 1 to)
    radar_stage_of(${to} to_stage)
    if(to_stage GREATER from_stage)
      string(APPEND problems "\n  ${from} (stage ${from_stage}) links ${to}, a later stage (${to_stage})")
    endif()
  endforeach()
  if(problems)
    message(FATAL_ERROR "radar's layers are broken:${problems}")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  # ctest: cmake -DEDGES=FILE -P layers.cmake
  file(STRINGS "${EDGES}" edges)
  if(NOT edges)
    message(FATAL_ERROR "no dependency edges in ${EDGES}")
  endif()
  radar_check_edges("${edges}")
  list(LENGTH edges n)
  message(STATUS "${n} dependency edges, all from a stage to itself or an earlier one")
  return()
endif()

function(radar_targets_below dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    radar_targets_below(${sub} more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# At the end of the top-level CMakeLists.txt: the product's targets (not
# tests, benchmarks or sample programs) and what each links.
function(radar_check_layers)
  radar_targets_below(${PROJECT_SOURCE_DIR} targets)
  set(edges "")
  foreach(t IN LISTS targets)
    get_target_property(dir ${t} SOURCE_DIR)
    get_target_property(type ${t} TYPE)
    if(dir MATCHES "^${PROJECT_SOURCE_DIR}/(tests|sample-programs)(/|$)" OR type STREQUAL "UTILITY"
       OR type STREQUAL "INTERFACE_LIBRARY" OR NOT t MATCHES "^radar")
      continue()
    endif()
    list(APPEND edges "${t}")
    get_target_property(links ${t} LINK_LIBRARIES)
    get_target_property(interface ${t} INTERFACE_LINK_LIBRARIES)
    foreach(dep IN LISTS links interface)
      if(dep AND TARGET ${dep} AND dep MATCHES "^radar")
        list(APPEND edges "${t}|${dep}")
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES edges)
  string(REPLACE ";" "\n" text "${edges}")
  file(WRITE ${PROJECT_BINARY_DIR}/layers/edges.txt "${text}\n")
  radar_check_edges("${edges}")
endfunction()
