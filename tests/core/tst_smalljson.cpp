// SPDX-License-Identifier: MIT
// Small JSON files (configs, sidecars, manifests, CLI output) through nlohmann/json: the errors name the
// file, numbers keep TileScope's spelling, members keep their order.
#include "io/smalljson.h"
#include "io/tracefileerror.h"

#include <QtTest>

#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <utility>

using namespace tilescope;

namespace {
std::string parseError(const std::string& text, const std::string& name = "cfg.json")
{
    try {
        io::parseSmallJson(text, name);
    } catch (const io::TraceFileError& e) {
        return e.what();
    }
    return "(no error)";
}
} // namespace

class TestSmallJson : public QObject
{
    Q_OBJECT
private slots:
    void parseErrorsAreOneLineNamingTheFileAndTheByte()
    {
        const std::string notJson = parseError("copy = 4");
        QVERIFY2(notJson.starts_with("cfg.json: byte 0: expected a JSON value"), notJson.c_str());
        const std::string truncated = parseError("{\"mode\": ", "my-session.json");
        QVERIFY2(truncated.starts_with("my-session.json: byte 9: "), truncated.c_str());
        const std::string trailing = parseError("{} x");
        QVERIFY2(trailing.starts_with("cfg.json: byte 3: "), trailing.c_str());
        for (const std::string& e : {notJson, truncated, trailing}) {
            QVERIFY2(e.find('\n') == std::string::npos, e.c_str());
            QVERIFY2(e.find("[json.exception") == std::string::npos, e.c_str());
        }
        QVERIFY(parseError(std::string((16u << 20) + 1, ' ')).find("too large") != std::string::npos);
    }

    void missingFilesNameThePath()
    {
        try {
            io::readSmallJsonFile("/nonexistent/ceilings.json");
            QFAIL("no error");
        } catch (const io::TraceFileError& e) {
            QCOMPARE(e.path(), std::string("/nonexistent/ceilings.json"));
        }
    }

    void membersKeepTheirOrder()
    {
        const std::string text = R"({"z":1,"a":[true,null],"m":{"y":"x","b":2.5}})";
        QCOMPARE(io::dumpJson(io::parseSmallJson(text, "t")), text);
    }

    void numbersAsTileScopeWritesThem()
    {
        QCOMPARE(io::dumpJson(io::jsonNumber(2.0)), std::string("2"));
        QCOMPARE(io::dumpJson(io::jsonNumber(-4096.0)), std::string("-4096"));
        QCOMPARE(io::dumpJson(io::jsonNumber(5349368754433.5)), std::string("5349368754433.5"));
        QCOMPARE(io::dumpJson(io::jsonNumber(0.1)), std::string("0.1"));
        QCOMPARE(io::dumpJson(io::jsonNumber(1e20)), std::string("1e+20"));
        QVERIFY(io::jsonNumber(4.8e12).is_number_float()); // shortest is "4.8e+12": a double, as before
        QVERIFY(io::jsonNumber(1e5).is_number_float());    // "1e+05"
        QVERIFY(io::jsonNumber(12345.0).is_number_integer());
        QCOMPARE(io::dumpJson(io::jsonNumber(std::nan(""))), std::string("null"));
        QCOMPARE(io::dumpJson(io::jsonNumber(std::numeric_limits<double>::infinity())), std::string("null"));
        QCOMPARE(io::dumpJson(io::jsonNumber(std::optional<double>())), std::string("null"));
        for (const double v : {1.0 / 3.0, 775.142456986898e12, 4.2173679e12, 1e-7, 123456.789}) {
            const io::Json back = io::parseSmallJson(io::dumpJson(io::jsonNumber(v)), "t");
            QCOMPARE(back.get<double>(), v); // shortest text, same double
        }
    }

    void integersFromAnyIntegralSpelling()
    {
        const io::Json j = io::parseSmallJson(R"({"a":42,"b":42.0,"c":4.2e1,"d":4.5,"e":"4","f":-3,"g":18446744073709551615})", "t");
        QCOMPARE(io::jsonInteger(io::jsonMember(j, "a")), std::optional<int64_t>(42));
        QCOMPARE(io::jsonInteger(io::jsonMember(j, "b")), std::optional<int64_t>(42));
        QCOMPARE(io::jsonInteger(io::jsonMember(j, "c")), std::optional<int64_t>(42));
        QCOMPARE(io::jsonInteger(io::jsonMember(j, "d")), std::optional<int64_t>());
        QCOMPARE(io::jsonInteger(io::jsonMember(j, "e")), std::optional<int64_t>());
        QCOMPARE(io::jsonInteger(io::jsonMember(j, "f")), std::optional<int64_t>(-3));
        QCOMPARE(io::jsonInteger(io::jsonMember(j, "g")), std::optional<int64_t>()); // past int64
        QCOMPARE(io::jsonInteger(io::jsonMember(j, "missing")), std::optional<int64_t>());
        QCOMPARE(io::jsonDouble(io::jsonMember(j, "d")), std::optional<double>(4.5));
        QCOMPARE(io::jsonDouble(io::jsonMember(j, "e")), std::optional<double>());
        QCOMPARE(io::jsonText(j, "e"), std::string("4"));
        QCOMPARE(io::jsonText(j, "a"), std::string());       // not a string
        QVERIFY(!io::jsonMember(io::Json::array({1}), "a")); // no object, no member
    }

    void bytesThatAreNotUtf8DoNotFailTheOutput()
    {
        const io::Json j = {{"path",
                             std::string("a\xff"
                                         "b")},
                            {"ctl", std::string("\x01\n")}};
        QCOMPARE(io::dumpJson(j),
                 std::string("{\"path\":\"a\xef\xbf\xbd"
                             "b\",\"ctl\":\"\\u0001\\n\"}"));
    }

    void indentedLikePythonsJsonDump()
    {
        const io::Json j = {{"copy_bytes_per_s", io::jsonNumber(4217367912345.0)}, {"gpu", "NVIDIA H200"}, {"quick", false}};
        QCOMPARE(io::dumpJson(j, 1),
                 std::string("{\n \"copy_bytes_per_s\": 4217367912345,\n \"gpu\": \"NVIDIA H200\",\n \"quick\": false\n}"));
    }

    // Absolute times at 1.7e15 µs: a double keeps 0.25 µs steps, the text keeps every ns.
    void microsecondsExactAtAbsoluteTimes()
    {
        QCOMPARE(io::dumpJson(io::jsonMicroseconds(1712195495502094565)), std::string("1712195495502094.565"));
        QCOMPARE(io::dumpJson(io::jsonMicroseconds(-1712195495502094001)), std::string("-1712195495502094.001"));
        QCOMPARE(io::dumpJson(io::jsonMicroseconds(1712195495502094000)), std::string("1712195495502094"));
        QCOMPARE(io::dumpJson(io::jsonMicroseconds(1712195495502094500)), std::string("1712195495502094.5"));
        // Durations and relative times stay plain numbers, written as before.
        QVERIFY(io::jsonMicroseconds(4300839).is_number_float());
        QCOMPARE(io::dumpJson(io::jsonMicroseconds(4300839)), std::string("4300.839"));
        QCOMPARE(io::dumpJson(io::jsonMicroseconds(1)), std::string("0.001"));
        QCOMPARE(io::dumpJson(io::jsonMicroseconds(-1500)), std::string("-1.5"));
        QVERIFY(io::jsonMicroseconds(42000).is_number_integer());
        // Every ns of a range of absolute times and of small ones, through the text.
        for (int64_t ns : {int64_t(1712195495502094565), int64_t(999999999999)}) {
            for (int k = 0; k < 2000; ++k, ++ns) {
                const std::string text = io::dumpJson(io::jsonMicroseconds(ns));
                const size_t dot = text.find('.');
                std::string fraction = dot == std::string::npos ? "" : text.substr(dot + 1);
                QVERIFY(fraction.size() <= 3);
                fraction.append(3 - fraction.size(), '0');
                QCOMPARE(std::stoll(text.substr(0, dot)) * 1000 + std::stoll(fraction), ns);
            }
        }
        // Readers of the value get the nearest double.
        const io::Json exact = io::jsonMicroseconds(1712195495502094565);
        QCOMPARE(io::jsonDouble(&exact), std::optional<double>(1712195495502094.565));
        QCOMPARE(io::jsonInteger(&exact), std::optional<int64_t>());
        const io::Json whole = io::jsonExactNumber("17121954955020940.0");
        QCOMPARE(io::jsonInteger(&whole), std::optional<int64_t>(17121954955020940));
        QCOMPARE(io::jsonExactNumberText(io::Json(1.5)), std::optional<std::string>());
    }

    // Exact numbers inside objects and arrays, compact and indented: nlohmann's layout.
    void exactNumbersInDocuments()
    {
        io::Json j = io::Json::object();
        j["name"] = "w";
        j["window_start_us"] = io::jsonMicroseconds(1712195495502094565);
        j["empty"] = io::Json::object();
        j["none"] = io::Json::array();
        j["plain"] = {{"a", 1}, {"b", io::Json::array({2.5, "x"})}};
        j["series"] = io::Json::array({io::Json::array({io::jsonMicroseconds(1712195495502094001), 3}), io::Json::array()});
        const std::string compact = R"({"name":"w","window_start_us":1712195495502094.565,"empty":{},"none":[],)"
                                    R"("plain":{"a":1,"b":[2.5,"x"]},"series":[[1712195495502094.001,3],[]]})";
        QCOMPARE(io::dumpJson(j), compact);
        // The indented layout equals nlohmann's own for the same document with those numbers as integers.
        io::Json same = j;
        same["window_start_us"] = 1712195495502094565;
        same["series"][0][0] = 1712195495502094001;
        std::string expected = same.dump(2);
        for (const auto& [from, to] : {std::pair<std::string, std::string>{"1712195495502094565", "1712195495502094.565"},
                                       std::pair<std::string, std::string>{"1712195495502094001", "1712195495502094.001"}})
            expected.replace(expected.find(from), from.size(), to);
        QCOMPARE(io::dumpJson(j, 2), expected);
        QCOMPARE(io::dumpJson(j, 0), [&] {
            std::string e = same.dump(0);
            e.replace(e.find("1712195495502094565"), 19, "1712195495502094.565");
            e.replace(e.find("1712195495502094001"), 19, "1712195495502094.001");
            return e;
        }());
        // Parsed back keeping the numbers' text, a document is written back unchanged.
        const std::string text = R"({"t":1712195495502094.565,"d":[0.1,1e-07,2.50,-3],"s":"1.5"})";
        QCOMPARE(io::dumpJson(io::parseSmallJsonKeepingNumberText(text, "t")), text);
        QCOMPARE(io::dumpJson(io::parseSmallJson(text, "t")),
                 std::string(R"({"t":1.7121954955020945e+15,"d":[0.1,1e-07,2.5,-3],"s":"1.5"})"));
        try {
            io::parseSmallJsonKeepingNumberText("{\"t\": 1.5,", "rank-0.json");
            QFAIL("no error");
        } catch (const io::TraceFileError& e) {
            QVERIFY(std::string(e.what()).find("rank-0.json") != std::string::npos);
        }
    }
};

QTEST_APPLESS_MAIN(TestSmallJson)
#include "tst_smalljson.moc"
