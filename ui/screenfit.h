// SPDX-License-Identifier: MIT
#pragma once

#include <QSize>

class QWidget;

// A window's first size: `wanted`, or less where the screen it opens on has less room (a 1366x768 laptop's),
// leaving room for the window manager's frame and title bar: past the screen's edge a window hides its
// buttons and scroll bars.
QSize sizeWithinScreen(const QWidget& window, QSize wanted);
