// SPDX-License-Identifier: MIT
// Shell quoting and splitting (core/session/commandline): what sh would make of the text, round trips.
#include "session/commandline.h"

#include <QtTest>

using namespace tilescope::session;
using Words = std::vector<std::string>;

Q_DECLARE_METATYPE(Words)

class TestCommandLine : public QObject
{
    Q_OBJECT
private slots:
    void quotesCommandLinesForTheLog()
    {
        QCOMPARE(shellQuoted({"python3", "-u", "a b.py", "it's"}), std::string("python3 -u 'a b.py' 'it'\\''s'"));
        QCOMPARE(shellQuoted({"a", "", "b"}), std::string("a '' b"));
        QCOMPARE(shellQuoted({"$HOME", "a\\b", "x\"y"}), std::string("'$HOME' 'a\\b' 'x\"y'"));
        QCOMPARE(shellQuoted({}), std::string());
    }

    void splitsAsAShellWould_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<Words>("words");
        QTest::newRow("plain") << "a b  c" << Words{"a", "b", "c"};
        QTest::newRow("tabs and newlines") << "\ta\nb \r" << Words{"a", "b"};
        QTest::newRow("nothing") << "   " << Words{};
        QTest::newRow("single quotes") << "'a b' c" << Words{"a b", "c"};
        QTest::newRow("double quotes") << "\"a b\" c" << Words{"a b", "c"};
        QTest::newRow("quotes inside a word") << "--name='a b'x" << Words{"--name=a bx"};
        QTest::newRow("empty arguments") << "a '' \"\" b" << Words{"a", "", "", "b"};
        QTest::newRow("escaped single quote") << "'it'\\''s'" << Words{"it's"};
        QTest::newRow("single quote in double quotes") << "\"it's\"" << Words{"it's"};
        QTest::newRow("backslash outside quotes") << "a\\ b c\\\\d" << Words{"a b", "c\\d"};
        QTest::newRow("backslash in single quotes is literal") << "'a\\b'" << Words{"a\\b"};
        QTest::newRow("backslash in double quotes") << "\"a\\\"b\\\\c\\$d\\n\"" << Words{"a\"b\\c$d\\n"};
        QTest::newRow("dollar is not expanded") << "$HOME \"$PATH\" '$x'" << Words{"$HOME", "$PATH", "$x"};
        QTest::newRow("unclosed quote runs to the end") << "a 'b c" << Words{"a", "b c"};
        QTest::newRow("trailing backslash") << "a\\" << Words{"a"};
    }
    void splitsAsAShellWould()
    {
        QFETCH(QString, text);
        QFETCH(Words, words);
        QCOMPARE(splitCommandLine(text.toStdString()), words);
    }

    void splittingUndoesQuoting()
    {
        const std::vector<Words> cases = {
            {"python3", "-u", "a b.py", "it's"},
            {"", "''", "'", "\"", "\\", "\\'", "a\\\"b"},
            {"$HOME", "`id`", "a;b", "*.py", "x=$(y)"},
            {"tab\there", "new\nline", "  spaces  "},
        };
        for (const Words& argv : cases)
            QCOMPARE(splitCommandLine(shellQuoted(argv)), argv);
    }
};

QTEST_APPLESS_MAIN(TestCommandLine)
#include "tst_commandline.moc"
