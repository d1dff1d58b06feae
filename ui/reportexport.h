// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

#include <functional>
#include <memory>

class WorkerJob;
struct TraceDocument;

// File > Export Report…: the pictures are drawn now, on the GUI thread (widgets live there); the findings,
// the rendering and the writing run on `job`'s thread. `done` runs on the GUI thread with what was written
// or why nothing was. A path without .html or .md gets .html.
void exportReport(const std::shared_ptr<const TraceDocument>& document, const QString& path, WorkerJob& job,
                  std::function<void(bool ok, const QString& message)> done);
