#pragma once
// The blocking "write every byte" loop, for descriptors whose writes may block: the
// diagnostic log, the audit log, a payload file. (stdout to a client is not one of them:
// it goes through output_descriptor.h, which never waits for a peer that stopped reading.)
//
// Retries after EINTR and after short writes. Returns true when every byte was written;
// false at the first other failure (errno says which), with an unknown part written.
// Thread-safe as write(2) is: callers that share a descriptor serialize themselves.
#include <string_view>

namespace mcpsh::transport {

bool write_all(int fd, std::string_view bytes);

}  // namespace mcpsh::transport
