// SPDX-License-Identifier: MIT
#include "screenfit.h"

#include <QScreen>
#include <QWidget>

QSize sizeWithinScreen(const QWidget& window, QSize wanted)
{
    const QScreen* screen = window.screen();
    if (!screen)
        return wanted;
    constexpr int kFrameWidth = 16, kFrameHeight = 48; // borders, and a title bar as the usual desktops draw it
    return wanted.boundedTo(screen->availableGeometry().size() - QSize(kFrameWidth, kFrameHeight));
}
