#pragma once
// The banner over the top of the window's centre: errors (stay until dismissed),
// hints (until replaced or dismissed) and questions with one action button. It
// floats over the view rather than pushing it down: a banner that moved the view
// ~30 px made the next click miss the marker it aimed at (issue 36).
#include <QFrame>

#include <functional>

class QLabel;
class QPushButton;

namespace kms::ui {

class Banner : public QFrame {
    Q_OBJECT
public:
    // Spans the top of `centre` and follows its width.
    explicit Banner(QWidget* centre);

    void show_message(const QString& message, bool error);
    // A question: the action button runs `confirmed`; dismissing it (✕, another
    // message) runs `declined`. confirm() presses the action, for tests and keys.
    void ask(const QString& message, const QString& action, std::function<void()> confirmed,
             std::function<void()> declined);
    bool confirm();
    void dismiss();
    // The text shown, or empty when hidden.
    QString text() const;
    // An error is shown (until dismissed).
    bool error() const { return error_; }
    // Answers a pending question "yes" without running its action (the caller acts).
    void forget_question() { declined_ = {}; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void place();

    QLabel* label_ = nullptr;
    QPushButton* action_ = nullptr;
    std::function<void()> confirmed_, declined_;
    bool error_ = false;
};

}  // namespace kms::ui
