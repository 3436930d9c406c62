#pragma once
// Sealing of the requestState a server hands a client between rounds of a multi
// round-trip request (MCP 2026-07-28, basic/patterns/mrtr). The state travels through the
// client, which the spec makes attacker-controlled: it is sealed with AES-256-GCM, so a
// client can neither read it (it may carry earlier answers) nor change it undetected.
//
// Token: base64url (no padding) of  version(1) | nonce(12) | ciphertext | tag(16).
// The nonce is random per seal (2^32 seals per key stay far inside GCM's bound for random
// nonces); the version byte is also authenticated.
//
// Key: 32 bytes, derived with HMAC-SHA256 from the bytes of a key file (at least 32 of
// them; several hosts behind one load balancer share the file and so open each other's
// states), or random per process when no file is given (a state then dies with the host
// that made it). Thread-safe: seal and open touch no shared mutable state.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mcpsh::asking {

class StateSealer {
 public:
  // A random key (OpenSSL's CSPRNG).
  static StateSealer random();
  // The key derived from a file's bytes; on failure `error` says why (unreadable, fewer
  // than 32 bytes) and nullopt is returned.
  static std::optional<StateSealer> from_key_file(const std::string& path, std::string& error);
  // Derives the key from `secret` (at least 32 bytes; tests and from_key_file).
  static std::optional<StateSealer> from_secret(std::string_view secret);

  std::string seal(std::string_view plaintext) const;
  // The plaintext, or nullopt when the token is not one this key sealed (malformed,
  // altered, or sealed by another key).
  std::optional<std::string> open(std::string_view token) const;

 private:
  explicit StateSealer(const std::array<unsigned char, 32>& key) : key_(key) {}
  std::array<unsigned char, 32> key_;
};

// An identifier no one can guess or enumerate: `bytes` random bytes from OpenSSL's CSPRNG,
// base64url without padding (16 bytes: 22 characters). The ids of tasks (the tasks
// extension says a task id may serve as a bearer token).
std::string unguessable_id(std::size_t bytes = 16);

}  // namespace mcpsh::asking
