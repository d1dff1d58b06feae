// SPDX-License-Identifier: MIT
#pragma once

#include <QSize>

class QWidget;

// A window's first size: `wanted`, or less where the screen it opens on has less room (a 1366x768 laptop's),
// leaving room for the window manager's frame and title bar: past the screen's edge a window hides its
// buttons and scroll bars.
QSize sizeWithinScreen(const QWidget& window, QSize wanted);
QSize sizeWithinRoom(QSize room, QSize wanted); // the same for a screen's available size

// How the main window opens on a screen with `room` available: at `wanted` where it fits with its frame; else
// maximized at the size that fits, and on a screen under kShortScreenHeight also in the short screen's layout
// (the right-hand docks the whole height, the table under the timeline).
struct WindowPlacement
{
    QSize size;
    bool maximized = false;
    bool shortScreenLayout = false;
};
constexpr int kShortScreenHeight = 1000;
WindowPlacement placeWindow(QSize room, QSize wanted);
