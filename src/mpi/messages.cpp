#include "mpi/messages.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "base/error.hpp"

namespace pfsp::dist {
namespace {

std::int64_t bits_of(double v) {
  std::int64_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
double double_of(std::int64_t b) {
  double v = 0;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

void put_nodes(words& w, const std::vector<frontier_node>& nodes, int n) {
  w.push_back(static_cast<std::int64_t>(nodes.size()));
  for (const frontier_node& f : nodes) {
    w.push_back(f.meta.limit1);
    w.push_back(f.meta.limit2);
    w.push_back(f.meta.lb);
    for (int i = 0; i < n; ++i) w.push_back(f.perm[static_cast<std::size_t>(i)]);
  }
}

// Reads a node list at w[at]; throws on a truncated message.
std::vector<frontier_node> get_nodes(const words& w, std::size_t& at, int n) {
  if (at >= w.size()) throw error("pfsp-mpi: a truncated message (node count)");
  const auto count = static_cast<std::size_t>(w[at++]);
  if (w.size() - at < count * static_cast<std::size_t>(n + 3)) throw error("pfsp-mpi: a truncated message (nodes)");
  std::vector<frontier_node> nodes(count);
  for (frontier_node& f : nodes) {
    f.meta = {static_cast<std::int32_t>(w[at]), static_cast<std::int32_t>(w[at + 1]),
              static_cast<std::int32_t>(w[at + 2])};
    at += 3;
    f.perm.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) f.perm[static_cast<std::size_t>(i)] = static_cast<job_t>(w[at++]);
  }
  return nodes;
}

}  // namespace

void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw error(std::string("MPI call failed: ") + what);
}

void send_words(MPI_Comm comm, const words& w, int to, int tag) {
  check_mpi(MPI_Send(w.data(), static_cast<int>(w.size()), MPI_INT64_T, to, tag, comm), "MPI_Send");
}

bool try_send_words(MPI_Comm comm, const words& w, int to, int tag) {
  return MPI_Send(w.data(), static_cast<int>(w.size()), MPI_INT64_T, to, tag, comm) == MPI_SUCCESS;
}

words receive_matched(MPI_Comm comm, const MPI_Status& st) {
  MPI_Status copy = st;
  int count = 0;
  check_mpi(MPI_Get_count(&copy, MPI_INT64_T, &count), "MPI_Get_count");
  words w(static_cast<std::size_t>(count));
  check_mpi(MPI_Recv(w.data(), count, MPI_INT64_T, st.MPI_SOURCE, st.MPI_TAG, comm, MPI_STATUS_IGNORE), "MPI_Recv");
  return w;
}

bool waiting(MPI_Comm comm, int from, int tag, MPI_Status& st) {
  int flag = 0;
  check_mpi(MPI_Iprobe(from, tag, comm, &flag, &st), "MPI_Iprobe");
  return flag != 0;
}

bool send_queue::post(words w, int to, int tag) {
  MPI_Request r = MPI_REQUEST_NULL;
  if (MPI_Isend(w.data(), static_cast<int>(w.size()), MPI_INT64_T, to, tag, comm_, &r) != MPI_SUCCESS) return false;
  requests_.push_back(r);
  buffers_.push_back(std::move(w));
  peers_.push_back(to);
  return true;
}

void send_queue::reap() {
  if (requests_.empty()) return;
  std::vector<int> done(requests_.size());
  int count = 0;
  if (MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &count, done.data(), MPI_STATUSES_IGNORE) !=
          MPI_SUCCESS ||
      count == MPI_UNDEFINED)
    return;
  // Completed requests are MPI_REQUEST_NULL now: keep the others, in order. Never move a pending
  // buffer onto itself: a vector's self-move-assignment (libstdc++) frees its storage while MPI
  // may still read it (a message past the eager limit goes by rendezvous, read after MPI_Isend
  // returns: rank 0 sent freed memory, or crashed, on chunks of a few hundred bytes and more).
  std::size_t keep = 0;
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    if (requests_[i] == MPI_REQUEST_NULL) continue;
    if (keep != i) {
      requests_[keep] = requests_[i];
      buffers_[keep] = std::move(buffers_[i]);
      peers_[keep] = peers_[i];
    }
    ++keep;
  }
  requests_.resize(keep);
  buffers_.resize(keep);
  peers_.resize(keep);
}

void send_queue::cancel_to(int to) {
  for (std::size_t i = 0; i < requests_.size(); ++i)
    if (peers_[i] == to && requests_[i] != MPI_REQUEST_NULL) MPI_Cancel(&requests_[i]);
  reap();  // the cancelled ones complete (cancelled, or sent before the cancel)
}

void send_queue::drain(double seconds) {
  const auto t0 = std::chrono::steady_clock::now();
  while (!requests_.empty() && std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds) {
    reap();
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  release();
}

// A freed request's send may still read its buffer (to a worker lost or slow past the drain):
// those buffers are kept until the process ends.
void send_queue::release() {
  static std::vector<words> kept_until_exit;
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    if (requests_[i] == MPI_REQUEST_NULL) continue;
    MPI_Request_free(&requests_[i]);
    kept_until_exit.push_back(std::move(buffers_[i]));
  }
  requests_.clear();
  buffers_.clear();
  peers_.clear();
}

std::int64_t double_bits(double v) { return bits_of(v); }
double bits_double(std::int64_t b) { return double_of(b); }

words encode(const work_msg& m, int n) {
  if (m.stop) return {0};
  words w{1, m.chunk_id, m.ub, m.seconds_left < 0 ? -1 : static_cast<std::int64_t>(m.seconds_left * 1000.0)};
  put_nodes(w, m.nodes, n);
  return w;
}

work_msg decode_work(const words& w, int n) {
  work_msg m;
  if (w.empty() || w[0] == 0) return m;
  if (w.size() < 5) throw error("pfsp-mpi: a truncated work message");
  m.stop = false;
  m.chunk_id = w[1];
  m.ub = static_cast<int>(w[2]);
  m.seconds_left = w[3] < 0 ? -1.0 : static_cast<double>(w[3]) / 1000.0;
  std::size_t at = 4;
  m.nodes = get_nodes(w, at, n);
  return m;
}

words encode(const result_msg& m, int n) {
  if (!m.has) return {0};
  words w{1,
          m.chunk_id,
          static_cast<std::int64_t>(m.status),
          m.makespan,
          m.lower_bound,
          static_cast<std::int64_t>(m.stats.branched),
          static_cast<std::int64_t>(m.stats.bounds),
          static_cast<std::int64_t>(m.stats.pruned),
          static_cast<std::int64_t>(m.stats.leaves),
          bits_of(m.stats.explored),
          m.signalled ? 1 : 0,
          static_cast<std::int64_t>(m.schedule.size())};
  for (int j : m.schedule) w.push_back(j);
  put_nodes(w, m.left, n);
  return w;
}

result_msg decode_result(const words& w, int n) {
  result_msg m;
  if (w.empty() || w[0] == 0) return m;
  if (w.size() < 13) throw error("pfsp-mpi: a truncated result message");
  m.has = true;
  m.chunk_id = w[1];
  m.status = static_cast<solve_status>(w[2]);
  m.makespan = static_cast<int>(w[3]);
  m.lower_bound = static_cast<int>(w[4]);
  m.stats.branched = static_cast<std::uint64_t>(w[5]);
  m.stats.bounds = static_cast<std::uint64_t>(w[6]);
  m.stats.pruned = static_cast<std::uint64_t>(w[7]);
  m.stats.leaves = static_cast<std::uint64_t>(w[8]);
  m.stats.explored = double_of(w[9]);
  m.signalled = w[10] != 0;
  const auto len = static_cast<std::size_t>(w[11]);
  if (w.size() - 12 < len) throw error("pfsp-mpi: a truncated result message (schedule)");
  m.schedule.assign(w.begin() + 12, w.begin() + 12 + static_cast<std::ptrdiff_t>(len));
  std::size_t at = 12 + len;
  m.left = get_nodes(w, at, n);
  return m;
}

words encode_schedule(int makespan, const std::vector<int>& schedule) {
  words w{makespan};
  w.insert(w.end(), schedule.begin(), schedule.end());
  return w;
}

words encode_doubles(const std::vector<double>& v) {
  words w;
  for (double x : v) w.push_back(bits_of(x));
  return w;
}

std::vector<double> decode_doubles(const words& w) {
  std::vector<double> v;
  for (std::int64_t b : w) v.push_back(double_of(b));
  return v;
}

bool tracing() {
  static const bool on = std::getenv("PFSP_MPI_TRACE") != nullptr;
  return on;
}

}  // namespace pfsp::dist
