// What the MPI stand-ins (libradar-rerun-mpi.so, rerun/mpi) ask
// libradar-rerun.so for each MPI call of a rank re-run alone, in plain C
// types: the stand-ins know the MPI library's handles, this library the
// script. Looked up with dlsym, like the recorder's pair (log/mpi_event.h).
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// A collective's flag: the rank gives in place (MPI_IN_PLACE).
#define RADAR_RERUN_MPI_IN_PLACE 1u

// One MPI call of the program, as the recorder would have recorded it.
struct radar_rerun_mpi_call {
  uint16_t kind;          // log::Kind, one of the Mpi* kinds
  uint32_t channel;       // its communicator's channel in the recording (0: unknown)
  int32_t peer;           // a send's destination, a receive's or probe's source asked
                          // (log::kMpiAnySource), a collective's root (-1: none)
  int32_t tag;            // a send's tag, a receive's or probe's tag asked (log::kMpiAnyTag)
  int32_t count;          // elements sent, or room for them
  uint32_t flags;         // a send's mode, as the recorder's; a probe: 1 for MPI_Iprobe;
                          // a collective: RADAR_RERUN_MPI_IN_PLACE
  uint32_t serial;        // a nonblocking receive completed: its MPI_Irecv's serial
  const char* operation;  // a collective or communicator call: "MPI_Allreduce"
  const int32_t* ints;    // a communicator call's: its parent's channel, color, key
  size_t int_count;
  const void* bytes;  // what the program sends or gives (contiguous)
  uint64_t size;
  void* into;  // where what it gets goes
  uint64_t room;
  const char* what;  // the call, for reports: "MPI_Send(to rank 1, tag 0, 4 bytes)"
};

// What the recording says the call did.
struct radar_rerun_mpi_answer {
  int32_t error;                    // the MPI error code it returned (0: success)
  int32_t peer;                     // a receive's or probe's: the source got
  int32_t tag;                      // ... the tag got
  uint64_t bytes;                   // ... the bytes got (a collective's: those put in `into`)
  uint32_t channel;                 // MPI_Init, a communicator made: its channel
  int32_t rank;                     // ... the rank in it
  int32_t size;                     // ... and its size
  uint32_t serial;                  // MPI_Irecv: its serial; a look at a completion: the receive's
  int32_t asked_source, asked_tag;  // a look at a receive or probe: what it asked
  uint32_t flags;                   // a look: the recorded call's flags
};

// Answers the calling thread's MPI call from the recording: 1 when it was
// the next recorded call (compared, and what it got copied to `into`); 0
// when the re-run left the recording (reported) or is not replaying, and
// the stand-in returns an MPI error.
int radar_rerun_mpi_replay(const struct radar_rerun_mpi_call* call, struct radar_rerun_mpi_answer* answer);
// Whether the calling thread's next recorded call is `kind` (a look only:
// a Test or Iprobe that found nothing was not recorded), with its fields.
int radar_rerun_mpi_next(uint16_t kind, struct radar_rerun_mpi_answer* answer);
// Reports a divergence the stand-ins found themselves (an MPI call they
// cannot answer): the re-run leaves the recording.
void radar_rerun_mpi_diverge(const char* report);

typedef int (*radar_rerun_mpi_replay_fn)(const struct radar_rerun_mpi_call*, struct radar_rerun_mpi_answer*);
typedef int (*radar_rerun_mpi_next_fn)(uint16_t, struct radar_rerun_mpi_answer*);
typedef void (*radar_rerun_mpi_diverge_fn)(const char*);

#ifdef __cplusplus
}
#endif
