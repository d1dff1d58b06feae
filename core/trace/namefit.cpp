// SPDX-License-Identifier: MIT
#include "trace/namefit.h"

#include "io/codepoints.h"
#include "trace/abbreviatename.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_set>

namespace tilescope::trace {

namespace {

constexpr std::string_view kCutMark = "...";
constexpr std::string_view kSkipMark = "\u2026, "; // the arguments two names share, skipped

// Gives `rows` (which all read `groupText`, and hold the different names of `group`) texts that all differ and
// that no other row reads (`taken`: every text shown this round), if one of their forms, cut at its end or from
// where they differ, gives them; true when a text changed.
bool tellGroupApart(const std::vector<std::string>& names, std::vector<std::string>& shown, const std::vector<size_t>& rows,
                    const std::string& groupText, const std::set<std::string>& group, std::unordered_set<std::string>& taken, double width,
                    const TextRuler& ruler)
{
    // The differing arguments come early in the two examples that matter most (implicit_convolve_sgemm<float,
    // float, 1024, ...> against <float, float, 128, ...>; vectorized_elementwise_kernel<4, AddFunctor<float>,
    // ...> against <4, FillFunctor<float>, ...>): each name's forms are tried from the shortest up with their
    // ends cut, until the group's texts all differ.
    const std::vector<std::string> members(group.begin(), group.end());
    std::vector<std::vector<std::string>> longestFirst;
    size_t levels = 0;
    for (const std::string& name : members) {
        std::vector<std::string> forms{name};
        for (std::string& form : nameAbbreviations(name))
            forms.push_back(std::move(form));
        levels = std::max(levels, forms.size());
        longestFirst.push_back(std::move(forms));
    }
    // Where the group's texts still read the same at a level (the arguments differ past the width), the start
    // of the arguments a form shares with the one most like it is skipped, back to the argument it ends in; a
    // kernel's own name too long to leave them room loses its middle: "split_embedding_backward_…_cta_per_row_1
    // <…, 2ul>(…)" against "…_warp_per_row_1<…, 2ul>(…)".
    const auto fromDifference = [&](const std::string& form, size_t common) -> std::string {
        const size_t open = form.find('<');
        size_t cut = common;
        while (cut > 0 && form[cut - 1] != '<' && !(form[cut - 1] == ' ' && cut >= 2 && form[cut - 2] == ','))
            --cut;
        if (open == std::string::npos || cut <= open + 1)
            return ruler.cutEnd(form, width);
        const std::string name = form.substr(0, open);
        const std::string rest = "<" + std::string(kSkipMark) + form.substr(cut);
        const double room = width - ruler.width(rest);
        if (ruler.width(name) <= room || room < width / 3)
            return ruler.cutEnd(name + rest, width);
        return ruler.cutEnd(ruler.cutMiddle(name, room) + rest, width);
    };
    // Where that does not tell them apart (mangled names, lambdas deep in the arguments), a text starts with
    // half of the one the group shares, which tells it from other groups, and goes on from a little before
    // where its name parts from the one most like it: "vectorized_elementwise_kernel<4, neg_...mbda()#14}::…"
    // against "…mbda()#12}::…".
    const auto aroundDifference = [&](const std::string& form, size_t common) -> std::string {
        constexpr size_t kContext = 8; // bytes kept before the difference
        size_t from = common > kContext ? common - kContext : 0;
        while (from > 0 && (static_cast<unsigned char>(form[from]) & 0xc0) == 0x80)
            --from; // not inside a UTF-8 sequence
        std::string head = ruler.cutEnd(groupText, width / 2);
        if (head == groupText)
            head += "\u2026";
        return ruler.cutEnd(head + form.substr(from), width);
    };
    enum class Mode { Whole, FromArguments, AroundDifference };
    const auto apartAt = [&](size_t level, Mode mode) -> std::optional<std::map<std::string, std::string>> {
        std::vector<const std::string*> forms;
        for (const std::vector<std::string>& all : longestFirst)
            forms.push_back(&all[all.size() - std::min(level, all.size())]);
        // Where each form parts from the one most like it (in a group of three, two may differ in an argument
        // and the third in its name): in sorted order that one is a neighbour, so each form is compared twice,
        // not with every other (groups of thousands of kernels that read alike took seconds).
        std::vector<size_t> common(members.size(), 0);
        if (mode != Mode::Whole) {
            std::vector<size_t> sorted(members.size());
            for (size_t m = 0; m < sorted.size(); ++m)
                sorted[m] = m;
            std::sort(sorted.begin(), sorted.end(), [&](size_t x, size_t y) { return *forms[x] < *forms[y]; });
            for (size_t k = 0; k + 1 < sorted.size(); ++k) {
                const std::string &x = *forms[sorted[k]], &y = *forms[sorted[k + 1]];
                const auto shared = static_cast<size_t>(std::mismatch(x.begin(), x.end(), y.begin(), y.end()).first - x.begin());
                common[sorted[k]] = std::max(common[sorted[k]], shared);
                common[sorted[k + 1]] = std::max(common[sorted[k + 1]], shared);
            }
        }
        std::map<std::string, std::string> apart; // member -> text
        std::set<std::string> texts;
        for (size_t m = 0; m < members.size(); ++m) {
            const std::string& form = *forms[m];
            std::string text = mode == Mode::Whole ? ruler.cutEnd(form, width)
                : mode == Mode::FromArguments      ? fromDifference(form, common[m])
                                                   : aroundDifference(form, common[m]);
            texts.insert(text);
            apart.emplace(members[m], std::move(text));
        }
        // Texts that read as other rows' would only move the clash (and groups told apart in turn could swap
        // texts for ever).
        if (texts.size() != members.size()
            || std::any_of(texts.begin(), texts.end(), [&](const std::string& text) { return text != groupText && taken.count(text) > 0; }))
            return std::nullopt;
        return apart;
    };
    const auto use = [&](const std::map<std::string, std::string>& apart) {
        bool changed = false;
        for (const size_t i : rows)
            if (const auto it = apart.find(names[i]); it != apart.end() && shown[i] != it->second) {
                shown[i] = it->second;
                taken.insert(it->second);
                changed = true;
            }
        return changed;
    };
    for (size_t level = 1; level <= levels; ++level) {
        std::optional<std::map<std::string, std::string>> apart = apartAt(level, Mode::Whole);
        if (!apart)
            apart = apartAt(level, Mode::FromArguments);
        if (apart)
            return use(*apart);
    }
    if (const auto apart = apartAt(levels, Mode::AroundDifference)) // the whole names, from where they differ
        return use(*apart);
    return false;
}

} // namespace

double CharacterRuler::width(std::string_view text) const { return static_cast<double>(io::codePointCount(text)); }

std::string CharacterRuler::cutEnd(std::string_view text, double width) const
{
    const auto points = static_cast<size_t>(std::max(width, 0.0));
    if (io::codePointCount(text) <= points)
        return std::string(text);
    if (points <= kCutMark.size()) // no room for the mark: the start alone, never wider than the width
        return io::prefixCodePoints(text, points);
    return io::prefixCodePoints(text, points - kCutMark.size()) + std::string(kCutMark);
}

std::string CharacterRuler::cutMiddle(std::string_view text, double width) const
{
    const auto points = static_cast<size_t>(std::max(width, 0.0));
    if (io::codePointCount(text) <= points)
        return std::string(text);
    if (points <= kCutMark.size())
        return io::prefixCodePoints(text, points);
    const size_t room = points - kCutMark.size();
    const size_t head = room - room / 2; // the start tells more: it gets the odd one
    return io::prefixCodePoints(text, head) + std::string(kCutMark) + io::suffixCodePoints(text, room - head);
}

std::string fitName(std::string_view name, double width, const TextRuler& ruler)
{
    if (ruler.width(name) <= width)
        return std::string(name);
    const std::vector<std::string> forms = nameAbbreviations(name);
    if (forms.empty())
        return ruler.cutMiddle(name, width);
    // Every form but the last keeps the outer template arguments, which tell similar kernels apart.
    for (size_t i = 0; i + 1 < forms.size(); ++i)
        if (ruler.width(forms[i]) <= width)
            return forms[i];
    const std::string& withArguments = forms.size() >= 2 ? forms[forms.size() - 2] : forms.back();
    const std::string& bare = forms.back();
    return ruler.cutMiddle(ruler.width(bare) < width ? withArguments : bare, width);
}

bool tellNamesApart(const std::vector<std::string>& names, std::vector<std::string>& shown, double width, const TextRuler& ruler)
{
    // The texts one group gets may be another's, so the rows are grouped again, a few times at most.
    bool anyChanged = false;
    for (int round = 0; round < 4; ++round) {
        std::map<std::string, std::vector<size_t>> rowsShowing; // text -> its rows
        for (size_t i = 0; i < names.size(); ++i)
            rowsShowing[shown[i]].push_back(i);
        std::unordered_set<std::string> taken;
        for (const auto& [text, rows] : rowsShowing)
            taken.insert(text);
        bool changed = false;
        for (const auto& [text, rows] : rowsShowing) {
            std::set<std::string> group;
            for (const size_t i : rows)
                group.insert(names[i]);
            if (group.size() >= 2) // one name on several rows is one name
                changed = tellGroupApart(names, shown, rows, text, group, taken, width, ruler) || changed;
        }
        anyChanged = anyChanged || changed;
        if (!changed)
            break;
    }
    return anyChanged;
}

std::vector<std::string> fitNamesApart(const std::vector<std::string>& names, double width, const TextRuler& ruler)
{
    std::vector<std::string> shown;
    shown.reserve(names.size());
    for (const std::string& name : names)
        shown.push_back(fitName(name, width, ruler));
    tellNamesApart(names, shown, width, ruler);
    return shown;
}

std::string shortenedName(std::string_view name, size_t width)
{
    // In code points, as every text width: a record_function label may be any UTF-8.
    if (io::codePointCount(name) <= width)
        return std::string(name);
    const std::vector<std::string> forms = nameAbbreviations(name);
    for (const std::string& form : forms)
        if (io::codePointCount(form) <= width)
            return form;
    if (!forms.empty())
        return forms.back();
    const size_t head = width / 2 >= 2 ? width / 2 - 2 : 0, tail = width - head >= 5 ? width - head - 5 : 0;
    return io::prefixCodePoints(name, head) + " ... " + io::suffixCodePoints(name, tail);
}

void NameShortener::add(std::string_view name)
{
    if (io::codePointCount(name) <= m_width || !m_added.insert(std::string(name)).second)
        return;
    // Kept longest first, ties in the order added: placed once, not the whole list sorted again per name.
    const auto at = std::upper_bound(m_names.begin(), m_names.end(), name.size(),
                                     [](size_t size, const auto& n) { return size > n.first.size(); });
    m_names.emplace(at, std::string(name), shortenedName(name, m_width));
    m_toldApart = false;
}

void NameShortener::tellApart() const
{
    if (m_toldApart)
        return;
    m_toldApart = true;
    std::vector<std::string> full, shown;
    for (const auto& [name, text] : m_names) {
        full.push_back(name);
        shown.push_back(text);
    }
    // At the shortener's own width: one name whose shortest form runs past it would otherwise widen every
    // other name told apart.
    if (!tellNamesApart(full, shown, static_cast<double>(m_width), CharacterRuler()))
        return;
    for (size_t i = 0; i < m_names.size(); ++i)
        m_names[i].second = std::move(shown[i]);
}

const std::vector<std::pair<std::string, std::string>>& NameShortener::names() const
{
    tellApart();
    return m_names;
}

std::string NameShortener::apply(std::string text, std::set<size_t>* used) const
{
    tellApart();
    for (size_t i = 0; i < m_names.size(); ++i) {
        const auto& [full, shortName] = m_names[i];
        for (size_t at = 0; (at = text.find(full, at)) != std::string::npos; at += shortName.size()) {
            text.replace(at, full.size(), shortName);
            if (used)
                used->insert(i);
        }
    }
    return text;
}

} // namespace tilescope::trace
