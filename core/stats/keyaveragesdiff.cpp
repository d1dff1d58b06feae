// SPDX-License-Identifier: MIT
#include "stats/keyaveragesdiff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

namespace tilescope::stats {

namespace {

// torch's group key (keyaverages.cpp): the name, CPU or device, user annotation, and the shapes when grouped by them.
using RowIdentity = std::tuple<std::string, DeviceType, bool, std::string>;

RowIdentity identityOf(const KeyAverage& row) { return {row.key, row.deviceType, row.isUserAnnotation, row.inputShapes}; }

double value(const std::optional<KeyAverage>& row, double KeyAverage::*field) { return row ? (*row).*field : 0.0; }

} // namespace

std::string diffChangeName(DiffChange change)
{
    switch (change) {
    case DiffChange::Added: return "added";
    case DiffChange::Removed: return "removed";
    case DiffChange::Increased: return "increased";
    case DiffChange::Decreased: return "decreased";
    case DiffChange::Unchanged: break;
    }
    return "unchanged";
}

DiffChange KeyAverageDiffRow::change() const
{
    if (!before)
        return DiffChange::Added;
    if (!after)
        return DiffChange::Removed;
    // Device time, else self CPU time, else the count: 138 calls against 132 of a call that takes no time
    // is not "unchanged".
    const double delta = deltaDeviceTimeTotal != 0 ? deltaDeviceTimeTotal
        : deltaSelfCpuTimeTotal != 0               ? deltaSelfCpuTimeTotal
                                                   : static_cast<double>(deltaCount);
    if (delta > 0)
        return DiffChange::Increased;
    if (delta < 0)
        return DiffChange::Decreased;
    return DiffChange::Unchanged;
}

KeyAveragesDiff diffKeyAverages(const KeyAverages& before, const KeyAverages& after)
{
    if (before.groupedByInputShape != after.groupedByInputShape)
        throw std::invalid_argument("diffKeyAverages: one side is grouped by input shape and the other is not");
    // Each side's rows are unique by their group key, so every key pairs at most one row from each side.
    std::map<RowIdentity, std::pair<const KeyAverage*, const KeyAverage*>> matched;
    for (const KeyAverage& row : before.rows)
        matched[identityOf(row)].first = &row;
    for (const KeyAverage& row : after.rows)
        matched[identityOf(row)].second = &row;

    KeyAveragesDiff diff;
    diff.groupedByInputShape = before.groupedByInputShape;
    const auto totalsOf = [](const KeyAverages& averages) {
        const std::vector<size_t> order = sortedRowOrder(averages, defaultSortKey(averages));
        return KeyAveragesTotals{averages.selfCpuTimeTotal(order), averages.selfDeviceTimeTotal(order), averages.useDevice};
    };
    diff.before = totalsOf(before);
    diff.after = totalsOf(after);
    diff.rows.reserve(matched.size());
    for (const auto& [identity, sides] : matched) {
        KeyAverageDiffRow row;
        const KeyAverage& any = sides.first ? *sides.first : *sides.second;
        row.key = any.key;
        row.inputShapes = any.inputShapes;
        row.deviceType = any.deviceType;
        row.isUserAnnotation = any.isUserAnnotation;
        if (sides.first)
            row.before = *sides.first;
        if (sides.second)
            row.after = *sides.second;
        row.deltaCount = (row.after ? row.after->count : 0) - (row.before ? row.before->count : 0);
        row.deltaSelfCpuTimeTotal = value(row.after, &KeyAverage::selfCpuTimeTotal) - value(row.before, &KeyAverage::selfCpuTimeTotal);
        row.deltaSelfDeviceTimeTotal = value(row.after, &KeyAverage::selfDeviceTimeTotal)
            - value(row.before, &KeyAverage::selfDeviceTimeTotal);
        row.deltaDeviceTimeTotal = value(row.after, &KeyAverage::deviceTimeTotal) - value(row.before, &KeyAverage::deviceTimeTotal);
        diff.rows.push_back(std::move(row));
    }
    // The map gave identity order; a stable sort keeps it as the last tie-break (device type, shapes).
    std::stable_sort(diff.rows.begin(), diff.rows.end(), [](const KeyAverageDiffRow& a, const KeyAverageDiffRow& b) {
        const double deviceA = std::abs(a.deltaDeviceTimeTotal), deviceB = std::abs(b.deltaDeviceTimeTotal);
        if (deviceA != deviceB)
            return deviceA > deviceB;
        const double cpuA = std::abs(a.deltaSelfCpuTimeTotal), cpuB = std::abs(b.deltaSelfCpuTimeTotal);
        if (cpuA != cpuB)
            return cpuA > cpuB;
        return a.key < b.key;
    });
    return diff;
}

} // namespace tilescope::stats
