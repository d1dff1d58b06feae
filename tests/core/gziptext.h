// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <zlib.h>

namespace testutil {

// `data` as one gzip member (zlib, level 6), with `header`'s optional fields when given; empty if zlib
// fails. For tests that make gzipped traces.
inline std::string gzipped(const std::string& data, gz_header* header = nullptr)
{
    z_stream z{};
    if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return {};
    if (header && deflateSetHeader(&z, header) != Z_OK) {
        deflateEnd(&z);
        return {};
    }
    std::string out(deflateBound(&z, static_cast<uLong>(data.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return rc == Z_STREAM_END ? out : std::string();
}

} // namespace testutil
