// SPDX-License-Identifier: MIT
#pragma once

#include "io/bytesource.h"

#include <memory>

namespace tilescope::io {

// Wraps a source so that its reads run ahead on a thread of their own, a few blocks in front of the
// reader: a gzip trace is inflated (zlib's inflate and its CRC) while the loader's main thread splits and
// merges, instead of in turn with them. The bytes, their order, the end and any error (thrown after every
// byte read before it, as the inner source would) are the inner source's; memory is about `blocks` + 2
// blocks of `blockBytes`. The inner source is only touched by the read-ahead thread after construction;
// destroying the wrapper stops that thread (after the block it is reading). Where no thread can be had,
// the inner source is returned as it is.
std::unique_ptr<ByteSource> readAheadSource(std::unique_ptr<ByteSource> inner, size_t blockBytes, size_t blocks);

} // namespace tilescope::io
