// SPDX-License-Identifier: MIT
#pragma once

#include "mainwindow.h"
#include "rooflinepanel.h"

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QtTest>

namespace testutil {

// Opens a trace in the window and waits until it is shown.
inline void loadAndWait(MainWindow& w, const QString& path)
{
    QSignalSpy changed(&w, &MainWindow::documentChanged);
    w.openFile(path);
    QVERIFY(changed.wait(30000));
}

// Shows the window at `size` and waits until it is on screen (layouts done, views sized).
inline void showExposed(QWidget& w, QSize size = {1400, 900})
{
    w.resize(size);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
}

// The action of the window's menus whose text is `text` ("Export &Report…"), or null.
inline QAction* menuAction(const MainWindow& w, const QString& text)
{
    for (QAction* menu : w.menuBar()->actions())
        if (menu->menu())
            for (QAction* a : menu->menu()->actions())
                if (a->text() == text)
                    return a;
    return nullptr;
}

// Waits until the panel's background reclassification (ceilings, annotations, sources) has landed.
inline void waitReclassified(RooflinePanel* panel)
{
    QVERIFY(QTest::qWaitFor([panel] { return !panel->isReclassifying(); }, 30000));
}

} // namespace testutil
