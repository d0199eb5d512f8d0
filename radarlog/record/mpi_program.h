// Whether a program is an MPI program or an MPI launcher: radar record then
// preloads the MPI interposer (libradar-mpi.so) beside the C library's, so
// that the job's messages are recorded at the MPI level too.
#pragma once

#include <string>

namespace radar::record {

// `path` is a launcher (mpirun, mpiexec, orterun, prterun, srun, through
// any symbolic links), or an ELF program that links an MPI library.
bool isMpiProgram(const std::string& path);

}  // namespace radar::record
