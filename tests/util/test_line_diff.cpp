// core/util/line_diff: the explorer's loop-nest comparison of two states.

#include "core/util/line_diff.h"

#include "tests/weights/qtest_std_string.h"

#include <QTest>

using namespace beamscope;

namespace {

// "  x" kept, "- x" removed, "+ x" added, one per line.
std::string render(const std::vector<DiffLine> &lines)
{
    std::string out;
    for (const DiffLine &l : lines)
        out += std::string(l.kind == DiffLine::Kind::Kept      ? "  "
                           : l.kind == DiffLine::Kind::Removed ? "- "
                                                               : "+ ") +
               l.text + "\n";
    return out;
}

} // namespace

class LineDiffTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void identicalTextsKeepEveryLine()
    {
        QCOMPARE(render(diffLines("a\nb\nc\n", "a\nb\nc")), std::string("  a\n  b\n  c\n"));
        QVERIFY(diffLines("", "").empty());
    }

    void oneChangedTilingShowsOnlyItsLines()
    {
        const std::string a = "realize out\n gpu_block x 8\n  gpu_thread x 32\n  compute f\n";
        const std::string b = "realize out\n gpu_block x 16\n  gpu_thread x 32\n  compute f\n";
        QCOMPARE(
            render(diffLines(a, b)),
            std::string("  realize out\n-  gpu_block x 8\n+  gpu_block x 16\n    gpu_thread x 32\n    compute f\n"));
    }

    void insertionsAndRemovalsKeepBothOrders()
    {
        QCOMPARE(render(diffLines("a\nb\nc\nd", "a\nc\nx\nd\ny")), std::string("  a\n- b\n  c\n+ x\n  d\n+ y\n"));
        QCOMPARE(render(diffLines("", "a\nb")), std::string("+ a\n+ b\n"));
        QCOMPARE(render(diffLines("a\nb", "")), std::string("- a\n- b\n"));
    }
};

QTEST_GUILESS_MAIN(LineDiffTest)
#include "test_line_diff.moc"
