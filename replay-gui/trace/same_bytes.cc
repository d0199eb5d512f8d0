// Sends kept once (log 1.15): a send whose log says its bytes are those
// its process received at one of its earlier events. Its bytes are put
// together from the records that hold them -- the sends matched to that
// receive, or the receive's own when it kept them -- and checked against
// the send's checksum; a send whose bytes do not check out is shown as
// bytes the recording does not have, never as other bytes.
#include <algorithm>

#include "log/crc32c.h"
#include "log/kinds.h"
#include "trace/trace.h"

namespace radar::trace {

// The part [from, from + n) of a run of pieces, appended to `out`.
void Trace::appendSlice(const SamePiece* begin, const SamePiece* end, uint64_t from, uint64_t n,
                        std::vector<SamePiece>* out) {
  for (const SamePiece* p = begin; p != end && n; ++p) {
    if (from >= p->bytes) {
      from -= p->bytes;
      continue;
    }
    const uint64_t take = std::min(p->bytes - from, n);
    out->push_back({p->event, p->skip + from, take});
    from = 0;
    n -= take;
  }
  if (n) out->push_back({kNone, 0, n});
}

const Trace::SameSend* Trace::sameSend(uint32_t send) const {
  if (!same_resolved_) resolveSameBytes();
  auto it = std::lower_bound(same_sends_.begin(), same_sends_.end(), send,
                             [](const SameSend& s, uint32_t position) { return s.send < position; });
  return it != same_sends_.end() && it->send == send ? &*it : nullptr;
}

// In the order of the story: the sends a receive got its bytes from come
// before it, and it before the send that passes them on, so each send's
// pieces are known when a later one needs them.
void Trace::resolveSameBytes() const {
  same_resolved_ = true;
  struct Found {
    uint32_t send, receive, hash;
    uint64_t from, moved;
  };
  std::vector<Found> found;
  for (uint32_t p = 0; p < processes.size(); ++p) {
    if (!processes[p].same_bytes_sends) continue;
    for (uint32_t position : process_events[p]) {
      const Event& ev = events[position];
      if (log::categoryOf(ev.eventKind()) != log::Category::Send || !(ev.flags & kEventHasPayload)) continue;
      // Read with the sends' own readers: a caller's record() stays valid.
      if (!cachedSend(position, nullptr) || !cached_send_record_.same_as) continue;
      const log::Record& r = cached_send_record_;
      const uint64_t base = processes[p].counter_base;
      const uint32_t receive = r.same_as > base ? positionOfCounter(p, r.same_as - base) : kNone;
      found.push_back({position, receive, r.hash, r.same_from, r.bytesMoved()});
    }
  }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.send < b.send; });
  // A send placed before the bytes it passes on (the merge keeps such an
  // edge where the story contradicts itself): not known, never itself.
  same_referring_.clear();
  for (const Found& f : found) same_referring_.push_back(f.send);
  for (const Found& f : found) {
    const uint64_t first = same_pieces_.size();
    appendSamePieces(f.send, f.receive, f.from, f.moved);
    same_sends_.push_back({f.send, f.hash, first});
  }
}

// The pieces of `receive`'s bytes [from, from + moved), for `send`.
void Trace::appendSamePieces(uint32_t send, uint32_t receive, uint64_t from, uint64_t moved) const {
  const Event* got = receive < send ? &events[receive] : nullptr;
  if (!got || log::categoryOf(got->eventKind()) != log::Category::Receive ||
      (got->flags & (kEventFailed | kEventPeek)) || from > got->value || moved > got->value - from) {
    same_pieces_.push_back({kNone, 0, moved});  // the load said so
    return;
  }
  std::vector<SamePiece> whole;
  if (got->flags & kEventHasPayload) {  // from outside the recording: it kept them
    whole.push_back({receive, 0, got->value});
  } else {
    uint64_t matched = 0;
    for (const ReceivedPiece& piece : receivedPieces(receive)) {
      matched += piece.bytes;
      const SameSend* same = sameSend(piece.send);
      if (!same) {
        const bool unresolved = std::binary_search(same_referring_.begin(), same_referring_.end(), piece.send);
        whole.push_back({unresolved ? kNone : piece.send, piece.skip, piece.bytes});
        continue;
      }
      const SamePiece* begin = same_pieces_.data() + same->first_piece;
      const SamePiece* end = same + 1 != same_sends_.data() + same_sends_.size()
                                 ? same_pieces_.data() + (same + 1)->first_piece
                                 : same_pieces_.data() + same_pieces_.size();
      appendSlice(begin, end, piece.skip, piece.bytes, &whole);
    }
    if (matched < got->value) whole.push_back({kNone, 0, got->value - matched});
  }
  std::vector<SamePiece> mine;
  appendSlice(whole.data(), whole.data() + whole.size(), from, moved, &mine);
  same_pieces_.insert(same_pieces_.end(), mine.begin(), mine.end());
}

bool Trace::sameBytes(uint32_t send, std::string_view* out, uint64_t* omitted, std::string* error) const {
  if (same_bytes_send_ == send) {  // a big message read in many pieces: put together once
    *out = same_bytes_;
    *omitted = same_bytes_omitted_;
    return true;
  }
  const SameSend* same = sameSend(send);
  const uint64_t end =
      same + 1 != same_sends_.data() + same_sends_.size() ? (same + 1)->first_piece : same_pieces_.size();
  std::string bytes;
  uint64_t moved = 0;
  bool whole = true;
  for (uint64_t i = same->first_piece; i < end; ++i) {
    const SamePiece piece = same_pieces_[i];
    moved += piece.bytes;
    if (!whole) continue;
    std::string_view held;
    uint64_t left_out = 0;
    std::string own;
    if (piece.event == kNone) {
      whole = false;
      continue;
    }
    if (log::categoryOf(events[piece.event].eventKind()) == log::Category::Send) {
      if (!storedPayload(piece.event, &held, &left_out, error)) return false;
    } else {
      log::Record r;
      if (!record(piece.event, &r, &own, nullptr, error)) return false;
      held = own;
    }
    const uint64_t have = piece.skip < held.size() ? std::min<uint64_t>(piece.bytes, held.size() - piece.skip) : 0;
    bytes.append(held.substr(static_cast<size_t>(piece.skip), static_cast<size_t>(have)));
    whole = have == piece.bytes;
  }
  // Bytes put together that are not those it sent (a receive matched to the
  // wrong sends where several processes share a stream): not shown.
  if (bytes.size() == moved && crc32c(0, bytes.data(), bytes.size()) != same->hash) bytes.clear();
  same_bytes_ = std::move(bytes);
  same_bytes_send_ = send;
  same_bytes_omitted_ = moved - same_bytes_.size();
  *out = same_bytes_;
  *omitted = same_bytes_omitted_;
  return true;
}

}  // namespace radar::trace
