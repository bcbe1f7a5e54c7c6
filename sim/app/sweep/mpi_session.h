#pragma once
// The sweep's use of MPI, optional at build time (TESSERA_HAVE_MPI) and at run time: MPI is
// started only when this process was launched by an MPI launcher with more than one rank
// (mpirun, mpiexec, srun --mpi=...), so that `tessera sweep` alone never pays for (or depends
// on) MPI, and no other command touches it. Point i runs on rank i mod size; rank 0 gathers.
#include <optional>
#include <string>
#include <vector>

namespace tessera::app::sweep {

// What the launcher's environment says (Open MPI, MPICH/Hydra, PMI, PMIx under Slurm).
struct MpiLaunch {
  bool launched = false;           // started by an MPI launcher
  int rank = 0;
  std::optional<int> size;         // when the environment says
  std::optional<int> local_size;   // ranks on this node, when the environment says
};
MpiLaunch detect_mpi_launch();

class MpiSession {
 public:
  // Starts MPI when built with it and launched with several ranks; otherwise a session of one
  // process. Built without MPI but launched with several ranks: prints a warning; rank 0 then
  // runs the whole study and the other ranks stand by (standby()).
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // A rank of an MPI launch that this build cannot join: it must do nothing.
  bool standby() const { return standby_; }
  // Ranks on this node (to share its cores between them), at least 1.
  int local_size() const { return local_size_; }

  // Every rank's `mine`, in rank order, on rank 0; empty on the other ranks. Collective.
  std::vector<std::string> gather_to_root(const std::string& mine) const;
  // Every rank's `mine`, in rank order, on every rank (tune's rounds: each rank decides the next
  // round from the same results). Collective.
  std::vector<std::string> all_gather(const std::string& mine) const;

  static bool built_with_mpi();

 private:
  int rank_ = 0;
  int size_ = 1;
  int local_size_ = 1;
  bool standby_ = false;
  bool initialised_ = false;
};

}  // namespace tessera::app::sweep
