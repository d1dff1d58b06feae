#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Renders the hicolor PNG sizes of the icon from tilescope.svg (ImageMagick). The PNGs are committed, so
# neither the build nor CI needs an SVG renderer; run this after editing the SVG.
set -euo pipefail
cd "$(dirname "$0")"
for size in 16 32 48 64 128 256; do
    convert -background none -density 192 tilescope.svg -resize "${size}x${size}" -strip -depth 8 "PNG32:tilescope-$size.png"
done
