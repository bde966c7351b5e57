#include "http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sstream>

namespace repro::test {

HttpServer::HttpServer(std::map<std::string, std::string> files) : files_(std::move(files)) {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  ::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  ::listen(listener_, 8);
  thread_ = std::thread([this] { serve(); });
}

HttpServer::~HttpServer() {
  stop_ = true;
  thread_.join();
  ::close(listener_);
}

void HttpServer::serve() {
  while (!stop_) {
    pollfd waiting{listener_, POLLIN, 0};
    if (::poll(&waiting, 1, 50) <= 0) continue;
    const int client = ::accept(listener_, nullptr, nullptr);
    if (client < 0) continue;
    ++requests_;
    std::string request;
    char buffer[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
      const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      request.append(buffer, n);
    }
    std::istringstream lines(request);
    std::string method, path;
    lines >> method >> path;
    size_t from = 0;
    const auto range = request.find("Range: bytes=");
    if (range != std::string::npos) from = std::stoul(request.substr(range + 13));
    std::string head, body;
    const auto it = files_.find(path);
    if (it == files_.end()) {
      head = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    } else {
      body = it->second.substr(std::min(from, it->second.size()));
      head = std::string(from ? "HTTP/1.1 206 Partial Content\r\n" : "HTTP/1.1 200 OK\r\n") +
             "Content-Length: " + std::to_string(body.size()) + "\r\n" +
             (from ? "Content-Range: bytes " + std::to_string(from) + "-" + std::to_string(it->second.size() - 1) +
                         "/" + std::to_string(it->second.size()) + "\r\n"
                   : "") +
             "Connection: close\r\n\r\n";
    }
    if (cut_after_ > 0 && body.size() > cut_after_) body.resize(cut_after_);  // then close: a cut transfer
    const std::string response = head + body;
    for (size_t sent = 0; sent < response.size();) {
      const ssize_t n = ::send(client, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += n;
    }
    ::close(client);
  }
}

}  // namespace repro::test
