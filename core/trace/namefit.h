// SPDX-License-Identifier: MIT
#pragma once

#include <set>
#include <string>
#include <unordered_set>
#include <string_view>
#include <vector>

namespace tilescope::trace {

// How a column measures a text and cuts it to a width: code points for the CLI's plain-text tables
// (CharacterRuler), a font's pixels for the GUI's (ui/namedelegate).
class TextRuler
{
public:
    virtual double width(std::string_view text) const = 0;
    // The text's start and an ellipsis, at most `width` wide; the text itself when it fits.
    virtual std::string cutEnd(std::string_view text, double width) const = 0;
    // The text's start and end around an ellipsis, at most `width` wide; the text itself when it fits.
    virtual std::string cutMiddle(std::string_view text, double width) const = 0;

protected:
    ~TextRuler() = default;
};

// Plain text: widths in code points, cuts marked "...".
class CharacterRuler final : public TextRuler
{
public:
    double width(std::string_view text) const override;
    std::string cutEnd(std::string_view text, double width) const override;
    std::string cutMiddle(std::string_view text, double width) const override;
};

// A name (a kernel's signature) in `width`: itself when it fits, else the first of its shorter forms
// (nameAbbreviations) that fits; past those that keep the outer template arguments, the middle of the
// shortest one that has them is cut (its start is the kernel's own name, its end the last arguments),
// unless only the bare name fits.
std::string fitName(std::string_view name, double width, const TextRuler& ruler);

// The texts for the rows of one column: fitName of each, except where different names would read the
// same (kernels that differ in a template argument the short forms drop, such as ResNet-50's
// implicit_convolve_sgemm<float, float, 1024, …> and <…, 128, …>): those rows get the start of a
// longer form, or skip to where their arguments differ ("implicit_convolve_sgemm<…, 1024, 6, 7, …").
// The same name on several rows (a CPU op and its CUDA row) keeps one text.
std::vector<std::string> fitNamesApart(const std::vector<std::string>& names, double width, const TextRuler& ruler);

// The regrouping step of fitNamesApart on texts made another way: `shown[i]` is the text of `names[i]`;
// the rows of different names that read the same get texts that differ where one of the names' forms,
// cut to `width`, gives them. Returns whether any text changed.
bool tellNamesApart(const std::vector<std::string>& names, std::vector<std::string>& shown, double width, const TextRuler& ruler);

// A name for a line of text: itself when at most `width` characters, else its first abbreviation that fits,
// else its shortest; with no structure to drop, its start and end around " ... " (which tell names apart best).
// The text outputs (summary's table aside, which cuts as torch does), the report and the findings use it.
std::string shortenedName(std::string_view name, size_t width);

// Long names shortened wherever they appear in texts (a finding's title naming its kernel, a report's
// paragraphs): add() the names, then apply() to each text. Longer names go first, so a name that holds
// another is replaced whole. Names whose shortened forms would read the same get forms that tell them apart
// (trace::tellNamesApart, in code points): fourteen different vectorized_elementwise_kernel<…>(…) in one
// text are fourteen kernels to a reader. add() every name before the first apply() (a later add can change the
// short forms of earlier ones); apply() settles them on first use, so one instance is not for several threads.
class NameShortener
{
public:
    explicit NameShortener(size_t width)
        : m_width(width)
    { }
    void add(std::string_view name);
    // `text` with every added name longer than the width replaced by its short form; the indices into names()
    // of those replaced go to `used` when given.
    std::string apply(std::string text, std::set<size_t>* used = nullptr) const;
    const std::vector<std::pair<std::string, std::string>>& names() const; // full, short

private:
    void tellApart() const; // the short forms of names added since the last call, told apart from the others

    size_t m_width;
    mutable std::vector<std::pair<std::string, std::string>> m_names;
    mutable bool m_toldApart = true;
    std::unordered_set<std::string> m_added; // the names in m_names, to add each once
};

} // namespace tilescope::trace
