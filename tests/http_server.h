#pragma once
// A one-thread HTTP/1.1 server on 127.0.0.1 for download tests: GET with
// optional "Range: bytes=N-", nothing else. Never touches the network.
#include <atomic>
#include <map>
#include <string>
#include <thread>

namespace repro::test {

class HttpServer {
 public:
  explicit HttpServer(std::map<std::string, std::string> files);  // path ("/a.gz") -> bytes
  ~HttpServer();
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests() const { return requests_; }
  // Bytes of a response body to send before closing the connection (0 = all): simulates a cut download.
  void cut_after(size_t bytes) { cut_after_ = bytes; }

 private:
  void serve();
  std::map<std::string, std::string> files_;
  int listener_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::atomic<size_t> cut_after_{0};
  std::thread thread_;
};

}  // namespace repro::test
