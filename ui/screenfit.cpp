// SPDX-License-Identifier: MIT
#include "screenfit.h"

#include <QScreen>
#include <QWidget>

QSize sizeWithinRoom(QSize room, QSize wanted)
{
    constexpr int kFrameWidth = 16, kFrameHeight = 48; // borders, and a title bar as the usual desktops draw it
    return wanted.boundedTo(room - QSize(kFrameWidth, kFrameHeight));
}

QSize sizeWithinScreen(const QWidget& window, QSize wanted)
{
    const QScreen* screen = window.screen();
    return screen ? sizeWithinRoom(screen->availableGeometry().size(), wanted) : wanted;
}

WindowPlacement placeWindow(QSize room, QSize wanted)
{
    const QSize fitting = sizeWithinRoom(room, wanted);
    if (fitting == wanted)
        return {wanted, false, false};
    // Past the screen's edge the window would hide the table and the roofline: maximized instead.
    return {fitting, true, room.height() < kShortScreenHeight};
}
