// SPDX-License-Identifier: MIT
#pragma once

#include "io/smalljson.h"
#include "trace/trace.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>

namespace testutil {

inline std::string dataPath(const std::string& relative) { return std::string(TILESCOPE_TEST_DATA) + "/" + relative; }

// v["frames"][0]["name"] for Qt's JSON values: text for members, numbers for items.
inline QJsonValue jsonAt(QJsonValue v, std::initializer_list<std::variant<const char*, int>> path)
{
    for (const auto& step : path)
        v = std::holds_alternative<int>(step) ? v.toArray().at(std::get<int>(step))
                                              : v.toObject().value(QString::fromUtf8(std::get<const char*>(step)));
    return v;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

inline std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

// The trace of an H200 workload folder: trace.json or trace.json.gz.
inline std::string workloadTrace(const std::string& workload)
{
    const std::string plain = dataPath("h200/" + workload + "/trace.json");
    return std::filesystem::exists(plain) ? plain : plain + ".gz";
}

// The session fixtures (tests/data/sessions): scripts, kernels.
inline std::string sessionData(const std::string& name) { return dataPath("sessions/" + name); }

// A small JSON file's top-level object; empty when it is missing or not an object.
inline QJsonObject readJsonObject(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

// A copy of the trace at `from` (plain or gzipped) without its deviceProperties (as older writers leave them
// out), written to `to` as plain JSON.
inline bool writeWithoutDeviceProperties(const QString& from, const QString& to)
{
    tilescope::io::Json root = tilescope::io::readSmallJsonFile(from.toStdString());
    if (!root.is_object() || !root.contains("deviceProperties"))
        return false;
    root.erase("deviceProperties");
    std::ofstream out(to.toStdString());
    out << root.dump();
    return bool(out);
}

// The index of the nth event (from 0) named `name` of `kind`, else kNoIndex.
inline uint32_t findEvent(const tilescope::trace::Trace& t, std::string_view name, tilescope::trace::EventKind kind, int nth = 0)
{
    for (uint32_t i = 0; i < t.events.size(); ++i)
        if (t.events[i].kind == kind && t.name(t.events[i]) == name && nth-- == 0)
            return i;
    return tilescope::trace::kNoIndex;
}

// Events named `name`, of any kind.
inline int countNamed(const tilescope::trace::Trace& t, std::string_view name)
{
    int n = 0;
    for (const tilescope::trace::Event& e : t.events)
        n += t.name(e) == name;
    return n;
}

// A program run to its end: exit status (-1 when it crashed or timed out) and both streams.
struct ProcessRun
{
    int exitCode = -1;
    QByteArray out, err;
};

inline ProcessRun runProcess(const QString& program, const QStringList& arguments, int timeoutMs = 180000)
{
    QProcess p;
    p.start(program, arguments);
    if (!p.waitForFinished(timeoutMs))
        qFatal("%s did not finish", qPrintable(program));
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

// A /proc/PID folder's process is a zombie (ended, waiting to be reaped): it no longer runs.
inline bool isZombie(const std::string& procDir)
{
    const std::string stat = readFile(procDir + "/stat");
    const size_t close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}

inline const char* h200Workloads[] = {"gemm_compare", "jit_cold", "launch_bound", "memory_churn", "streams_overlap", "train_scheduled"};

} // namespace testutil
