#include "asking/sealed_state.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>

namespace mcpsh::asking {

namespace {

constexpr unsigned char kVersion = 1;
constexpr std::size_t kNonce = 12, kTag = 16, kMinSecret = 32;
constexpr std::string_view kLabel = "mcp-shell-host requestState v1";

using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

CipherContext new_context() {
  CipherContext ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  if (!ctx) throw std::bad_alloc();
  return ctx;
}

const unsigned char* bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}
unsigned char* bytes(std::string& s) { return reinterpret_cast<unsigned char*>(s.data()); }

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string encode_base64url(std::string_view in) {
  std::string out;
  out.reserve((in.size() * 4 + 2) / 3);
  std::size_t i = 0;
  auto at = [&](std::size_t k) { return static_cast<unsigned char>(in[k]); };
  for (; i + 3 <= in.size(); i += 3) {
    const unsigned v = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (in.size() - i == 1) {
    const unsigned v = at(i) << 16;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
  } else if (in.size() - i == 2) {
    const unsigned v = (at(i) << 16) | (at(i + 1) << 8);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
  }
  return out;
}

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

// Strict: the unpadded alphabet only, no length that no encoding produces, and unused
// trailing bits zero (so that one byte string has one token).
std::optional<std::string> decode_base64url(std::string_view in) {
  if (in.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(in.size() * 3 / 4);
  unsigned acc = 0;
  int bits = 0;
  for (char c : in) {
    const int v = sextet(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) return std::nullopt;
  return out;
}

}  // namespace

StateSealer StateSealer::random() {
  std::array<unsigned char, 32> key{};
  if (RAND_bytes(key.data(), static_cast<int>(key.size())) != 1)
    throw std::runtime_error("no random bytes for the requestState key");
  return StateSealer(key);
}

std::optional<StateSealer> StateSealer::from_secret(std::string_view secret) {
  if (secret.size() < kMinSecret) return std::nullopt;
  std::array<unsigned char, 32> key{};
  unsigned int length = 0;
  if (!HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), bytes(kLabel),
            kLabel.size(), key.data(), &length) ||
      length != key.size())
    return std::nullopt;
  return StateSealer(key);
}

std::optional<StateSealer> StateSealer::from_key_file(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read the state key file " + path;
    return std::nullopt;
  }
  std::string secret((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto sealer = from_secret(secret);
  if (!sealer)
    error = "the state key file " + path + " holds " + std::to_string(secret.size()) +
            " bytes; it needs at least 32 (e.g. `head -c 32 /dev/urandom | base64 > FILE`)";
  return sealer;
}

std::string StateSealer::seal(std::string_view plaintext) const {
  std::string sealed(1 + kNonce + plaintext.size() + kTag, '\0');
  sealed[0] = static_cast<char>(kVersion);
  unsigned char* nonce = bytes(sealed) + 1;
  if (RAND_bytes(nonce, kNonce) != 1) throw std::runtime_error("no random bytes for a nonce");
  auto ctx = new_context();
  int n = 0;
  unsigned char* out = nonce + kNonce;
  if (EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key_.data(), nonce) != 1 ||
      EVP_EncryptUpdate(ctx.get(), nullptr, &n, bytes(sealed), 1) != 1 ||  // version: AAD
      EVP_EncryptUpdate(ctx.get(), out, &n, bytes(plaintext), static_cast<int>(plaintext.size())) !=
          1 ||
      EVP_EncryptFinal_ex(ctx.get(), out + n, &n) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTag, out + plaintext.size()) != 1)
    throw std::runtime_error("sealing a requestState failed");
  return encode_base64url(sealed);
}

std::optional<std::string> StateSealer::open(std::string_view token) const {
  auto sealed = decode_base64url(token);
  if (!sealed || sealed->size() < 1 + kNonce + kTag ||
      static_cast<unsigned char>((*sealed)[0]) != kVersion)
    return std::nullopt;
  const std::size_t size = sealed->size() - 1 - kNonce - kTag;
  const unsigned char* nonce = bytes(*sealed) + 1;
  const unsigned char* in = nonce + kNonce;
  std::string plain(size, '\0');
  auto ctx = new_context();
  int n = 0;
  std::array<unsigned char, kTag> tag{};
  std::copy(in + size, in + size + kTag, tag.begin());
  if (EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key_.data(), nonce) != 1 ||
      EVP_DecryptUpdate(ctx.get(), nullptr, &n, bytes(*sealed), 1) != 1 ||
      EVP_DecryptUpdate(ctx.get(), bytes(plain), &n, in, static_cast<int>(size)) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTag, tag.data()) != 1 ||
      EVP_DecryptFinal_ex(ctx.get(), bytes(plain) + n, &n) != 1)
    return std::nullopt;
  return plain;
}

std::string unguessable_id(std::size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(raw.size())) != 1)
    throw std::runtime_error("no random bytes for an id");
  return encode_base64url(raw);
}

}  // namespace mcpsh::asking
