// SPDX-License-Identifier: MIT
// Short forms of kernel names keep similar kernels apart (the key-averages table's Name column).
#include "trace/abbreviatename.h"
#include "trace/namefit.h"

#include <QtTest>

#include <set>

using namespace tilescope;

namespace {
// Six kernels of the bundled sample whose names share their first 60 characters.
const char* kMultiTensor[] = {
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>, "
    "at::native::(anonymous namespace)::BinaryOpScalarFunctor<c10::BFloat16, 1, 1, 0>, std::multiplies<float>, "
    "float>(at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous "
    "namespace)::BinaryOpScalarFunctor<c10::BFloat16, 1, 1, 0>, std::multiplies<float>, float)",
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListScalarListMetadata<float, 3>, at::native::(anonymous namespace)::PointwiseOpScalarListFunctor<c10::BFloat16, 3, "
    "3, 0>, std::divides<float> >(at::native::(anonymous namespace)::TensorListScalarListMetadata<float, 3>, at::native::(anonymous "
    "namespace)::PointwiseOpScalarListFunctor<c10::BFloat16, 3, 3, 0>, std::divides<float>)",
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<3>, "
    "at::native::(anonymous namespace)::PointwiseOpScalarFunctor<c10::BFloat16, 3, 3, 0>, std::multiplies<float>, "
    "float>(at::native::(anonymous namespace)::TensorListMetadata<3>, at::native::(anonymous "
    "namespace)::PointwiseOpScalarFunctor<c10::BFloat16, 3, 3, 0>, std::multiplies<float>, float)",
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<2>, "
    "at::native::(anonymous namespace)::TernaryOpScalarFunctor<c10::BFloat16, 2, 2, 0>, at::native::LerpFunctor<float>, "
    "float>(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous "
    "namespace)::TernaryOpScalarFunctor<c10::BFloat16, 2, 2, 0>, at::native::LerpFunctor<float>, float)",
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<2>, "
    "at::native::(anonymous namespace)::UnaryOpFunctor<c10::BFloat16, 2, 1, 1>, at::native::Sqrt<float> >(at::native::(anonymous "
    "namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::UnaryOpFunctor<c10::BFloat16, 2, 1, 1>, "
    "at::native::Sqrt<float>)",
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>, "
    "at::native::(anonymous namespace)::BinaryOpScalarFunctor<c10::BFloat16, 1, 1, 0>, std::plus<float>, float>(at::native::(anonymous "
    "namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<c10::BFloat16, 1, 1, 0>, "
    "std::plus<float>, float)",
};
} // namespace

class TestAbbreviateName : public QObject
{
    Q_OBJECT
private slots:
    void formsShrinkAndKeepTheKernelName()
    {
        const auto forms = trace::nameAbbreviations(kMultiTensor[0]);
        QVERIFY(forms.size() >= 4);
        size_t previous = std::string_view(kMultiTensor[0]).size();
        for (const auto& form : forms) {
            QVERIFY2(form.size() < previous, form.c_str());
            QVERIFY2(form.find("multi_tensor_apply_kernel") != std::string::npos, form.c_str());
            previous = form.size();
        }
        QCOMPARE(forms.front().substr(0, 5), std::string("at::n")); // the return type goes first
        QVERIFY(std::find(forms.begin(), forms.end(),
                          "multi_tensor_apply_kernel<TensorListMetadata<1>, BinaryOpScalarFunctor<BFloat16, 1, 1, 0>, multiplies<float>, "
                          "float>(\xE2\x80\xA6)")
                != forms.end());
        QCOMPARE(QString::fromStdString(forms.back()), QString::fromUtf8("multi_tensor_apply_kernel<\xE2\x80\xA6>(\xE2\x80\xA6)"));
    }

    void similarKernelsStayApartUntilTheLastForm()
    {
        // Every form but the last (outer template arguments gone) tells the six kernels apart, and each
        // form before it
        // fits about 120 characters.
        const size_t count = std::size(kMultiTensor);
        std::vector<std::vector<std::string>> all;
        for (const char* name : kMultiTensor)
            all.push_back(trace::nameAbbreviations(name));
        for (size_t step = 0;; ++step) {
            std::set<std::string> distinct;
            bool allHaveStep = true;
            for (const auto& forms : all) {
                allHaveStep = allHaveStep && step + 1 < forms.size();
                if (step < forms.size())
                    distinct.insert(forms[step]);
            }
            if (!allHaveStep)
                break;
            QCOMPARE(distinct.size(), count);
        }
        for (const auto& forms : all) {
            QVERIFY(forms.size() >= 2);
            QVERIFY2(QString::fromStdString(forms[forms.size() - 2]).size() < 120, forms[forms.size() - 2].c_str());
        }
    }

    void plainNamesHaveNoForms()
    {
        QVERIFY(trace::nameAbbreviations("aten::mm").empty());
        QVERIFY(trace::nameAbbreviations("ProfilerStep*").empty());
        // An operator< leaves the brackets unbalanced: only the return type goes, nothing is cut wrongly.
        const auto forms = trace::nameAbbreviations("void bool operator<(Foo const&, Foo const&)");
        QVERIFY(forms.size() <= 1);
        QVERIFY(trace::nameAbbreviations("").empty());
    }

    // A name for a line: whole when it fits, else the first form that fits, else the shortest form; a name
    // with no structure keeps its start and end (which tell such names apart) around " ... ".
    void shortenedNameFitsTheWidth()
    {
        const std::string name = kMultiTensor[0];
        QCOMPARE(trace::shortenedName("aten::mm", 80), std::string("aten::mm"));
        const auto forms = trace::nameAbbreviations(name);
        QVERIFY(forms.size() >= 2);
        const size_t width = forms[1].size();
        QCOMPARE(trace::shortenedName(name, width), forms[1]);
        QCOMPARE(trace::shortenedName(name, 1), forms.back());
        const std::string plain = std::string(150, 'a') + "_middle_" + std::string(150, 'z');
        const std::string cut = trace::shortenedName(plain, 100);
        QCOMPARE(cut.size(), size_t(100));
        QVERIFY(cut.starts_with("aaaa") && cut.ends_with("zzzz") && cut.find(" ... ") != std::string::npos);
    }

    // Every occurrence of every long name replaced, a name holding another replaced whole, short ones kept.
    void nameShortenerReplacesInText()
    {
        trace::NameShortener names(40);
        const std::string inner = "void kernel<float, Functor<int>>(int, Functor<int>, float*)";
        const std::string outer = "void outer<" + inner + ">(int)";
        names.add("aten::mm"); // short: kept as it is
        names.add(inner);
        names.add(outer);
        names.add(inner); // once
        QCOMPARE(names.names().size(), size_t(2));
        std::set<size_t> used;
        const std::string text = names.apply("ran " + outer + " and " + inner + " twice: " + inner + "; aten::mm", &used);
        QCOMPARE(text,
                 "ran " + trace::shortenedName(outer, 40) + " and " + trace::shortenedName(inner, 40)
                     + " twice: " + trace::shortenedName(inner, 40) + "; aten::mm");
        QCOMPARE(used.size(), size_t(2));
        QCOMPARE(names.apply("nothing long"), std::string("nothing long"));
    }
};

QTEST_APPLESS_MAIN(TestAbbreviateName)
#include "tst_abbreviatename.moc"
