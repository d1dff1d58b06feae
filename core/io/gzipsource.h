// SPDX-License-Identifier: MIT
#pragma once

#include "io/bytesource.h"

#include <memory>

namespace tilescope::io {

// The library that inflates a gzip trace. ISA-L's inflate (Intel's igzip, Debian's libisal2) runs 2.2-2.7x
// zlib's on trace JSON, so it is the one used where the build has its headers and its library opens (on first
// use); zlib is the fallback (a GPU box building core with what it has).
enum class Inflater {
    Best, // ISA-L if built in, else zlib
    Isal,
    Zlib,
};

// Whether `inflater` can be used here (Best: either): built in and, for ISA-L, its library opened.
bool hasInflater(Inflater inflater);

// Inflates the gzip stream read from `compressed`, concatenated members included, as `gzip -d` does.
// Errors name the file and give offsets in compressed bytes; a stream cut short first hands over what did
// inflate, so a partial load keeps the events in it. Throws TraceFileError
// when `inflater` cannot be used.
std::unique_ptr<ByteSource> gzipSource(std::unique_ptr<ByteSource> compressed, Inflater inflater = Inflater::Best);

} // namespace tilescope::io
