// SPDX-License-Identifier: MIT
#pragma once

#include "findings/finding.h"

#include <QAbstractTableModel>
#include <QColor>

#include <memory>
#include <vector>

// One row per finding (findings::diagnose, in its order): the strength badge, the id and the title.
// DecorationRole of the strength column is the badge colour; FindingRole gives the finding's index in
// findings(). The model shares ownership of the findings it shows, so a new range never frees them under
// a repaint.
class FindingsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { StrengthColumn, IdColumn, TitleColumn, NUM_COLUMNS };
    enum Roles { FindingRole = Qt::UserRole + 1 };

    explicit FindingsModel(QObject* parent = nullptr);
    void setFindings(std::shared_ptr<const std::vector<tilescope::findings::Finding>> findings);
    const std::vector<tilescope::findings::Finding>& findings() const;
    const tilescope::findings::Finding* finding(int row) const;

    // Strong red-orange, weak amber, provisional grey: the badge's colour here and in the details.
    static QColor strengthColor(tilescope::findings::Strength strength);
    static QString strengthToolTip(tilescope::findings::Strength strength);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const std::vector<tilescope::findings::Finding>> m_findings;
};
