// Runs a binary (the real pfsp: PFSP_BINARY) as a child process, capturing stdout, stderr and the
// exit status; optionally sends SIGINT after a delay. POSIX only (posix_spawn, waitpid).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace pfsp::test {

struct process_result {
  int exit_code = -1;      // WEXITSTATUS when the process exited
  int signal = 0;          // the signal that killed it, 0 if it exited
  bool timed_out = false;  // killed by us after the deadline
  std::string out, err;
  std::string command;  // for failure messages

  std::string describe() const {
    std::ostringstream s;
    s << "command: " << command << "\nexit code " << exit_code;
    if (signal) s << ", killed by signal " << signal;
    if (timed_out) s << " (timed out)";
    s << "\n--- stdout ---\n" << out << "--- stderr ---\n" << err << "---";
    return s.str();
  }
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh temporary directory, removed by the destructor.
class temp_dir {
 public:
  temp_dir() {
    char tmpl[] = "/tmp/pfsp_test_XXXXXX";
    const char* p = ::mkdtemp(tmpl);
    path_ = p ? p : "/tmp";
  }
  ~temp_dir() {
    if (path_ != "/tmp") std::system(("rm -rf '" + path_ + "'").c_str());
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Runs `binary args...` with stdin from /dev/null. If sigint_after_s >= 0, sends SIGINT to the
// child after that many seconds. Kills the child (SIGKILL) after deadline_s.
inline process_result run_binary(const std::string& binary, const std::vector<std::string>& args,
                                 double sigint_after_s = -1, double deadline_s = 120) {
  process_result r;
  r.command = binary;
  for (const auto& a : args) r.command += " " + a;
  temp_dir dir;
  const std::string out_path = dir.file("stdout"), err_path = dir.file("stderr");

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> argv_s{binary};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, binary.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    r.err = "posix_spawn failed with error " + std::to_string(rc);
    return r;
  }

  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  bool sent = sigint_after_s < 0;
  int status = 0;
  while (true) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    const double t = std::chrono::duration<double>(clock::now() - start).count();
    if (!sent && t >= sigint_after_s) {
      ::kill(pid, SIGINT);
      sent = true;
    }
    if (t >= deadline_s) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

#if defined(PFSP_BINARY)
// Runs the pfsp binary (PFSP_BINARY) as run_binary does.
inline process_result run_pfsp(const std::vector<std::string>& args, double sigint_after_s = -1,
                               double deadline_s = 120) {
  return run_binary(PFSP_BINARY, args, sigint_after_s, deadline_s);
}
#endif

}  // namespace pfsp::test
