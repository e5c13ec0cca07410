/**
 * Payloads for the endpoints without a real sample in exchange-samples (cards, IBANs, wallets,
 * withdrawal, hector markets, margin, trading credit). Built field by field from the spec's
 * section 2 (and the developers.wallex.ir schemas quoted in the doc_* samples), with realistic
 * values in the exchange's mixed number / numeric-string style.
 */
const iban = {
  id: 7,
  iban: 'IR06******************0001',
  owners: ['محمد محمدی'],
  bank_name: 'ملت',
  status: 'ACCEPTED',
  is_default: 1,
  withdraw_daily_amount: 1000000000,
  withdraw_available_amount: null,
  bank_details: { code: 'BKMTIR', label: 'Mellat', is_available: true },
};

export const cardsBody = {
  success: true,
  message: 'ok',
  result: [{ id: 3, card_number: '6104-33**-****-1234', owners: ['محمد محمدی'], status: 'ACCEPTED', is_default: 0 }],
};

export const ibansBody = {
  success: true,
  message: 'ok',
  result: [iban],
  result_info: { page: 1, per_page: 20, count: 1, total_count: 1 },
};

export const walletBody = {
  success: true,
  message: 'ok',
  provider: 'wallex',
  result: {
    coin_type: {
      key: 'USDT',
      name: 'تتر',
      name_en: 'Tether',
      type: 'token',
      deposit_availability: true,
      withdrawal_availability: true,
      deposit_unavailability_reason: null,
      withdrawal_unavailability_reason: null,
    },
    wallets: {
      TRC20: {
        network: {
          id: 5,
          name: 'TRC20',
          deposit_availability: true,
          withdrawal_availability: true,
          deposit_unavailability_reason: null,
          withdrawal_unavailability_reason: null,
        },
        address: 'TXYZabc123def456ghi789jkl012mno345',
        memo: null,
        expire_at: null,
        min_confirmation: 20,
        transaction_fee: '1.0000000000000000',
        min_withdrawal_value: 10,
        min_deposit_value: '0.5',
      },
    },
  },
};

export const withdrawalBody = {
  success: true,
  message: 'ok',
  result: {
    amount: 5000000,
    fee: 5000,
    tracking_code: 'W-2024-000123',
    created_at: '2024-05-01T12:34:56.123456Z',
    status: 'pending',
    iban,
    details: [{ value: 5000000, status: 'pending' }],
  },
};

export const activeMarketsBody = {
  result: {
    markets: [
      {
        symbol: 'BTCTMN',
        base_asset: 'BTC',
        quote_asset: 'TMN',
        fa_base_asset: 'بیت کوین',
        fa_quote_asset: 'تومان',
        en_base_asset: 'Bitcoin',
        en_quote_asset: 'Toman',
        categories: [1, 4],
        price: '6543210000',
        change_24h: -1.25,
        volume_24h: '12.5',
        change_7D: '3.1',
        quote_volume_24h: '81790125000',
        created_at: '2020-04-01T00:00:00Z',
        spot_is_new: false,
        otc_is_new: false,
        is_new: false,
        is_spot: true,
        is_otc: true,
        is_margin: false,
        is_tmn_based: true,
        is_usdt_based: false,
        is_zero_fee: false,
        leverage_step: '-',
        max_leverage: '-',
        amount_precision: 6,
        price_precision: 0,
        flags: [],
      },
    ],
    message: 'The operation was successful',
    success: true,
  },
};

const money = (value: string, currency = 'USDT') => ({ currency, value });

export const position = {
  id: 1842,
  market: 'BTCUSDT',
  side: 'long',
  state: 'open',
  call_price: '58210.55',
  liquidity_price: '56100.1',
  is_called: false,
  close_price: null,
  close_filled_price: null,
  close_reason: null,
  closed_at: null,
  open_price: '62500',
  open_filled_price: '62498.5',
  opened_at: '2024-05-01T10:00:00Z',
  created_at: '2024-05-01T09:59:58.000000Z',
  updated_at: '2024-05-01T10:00:00Z',
  expires_at: '2024-05-22T10:00:00Z',
  extend_time: '4h',
  max_age: '21d',
  first_order_filled: true,
  collateral: money('300'),
  interest: money('0.12'),
  loan: money('2700'),
  profit: money('-1.5'),
  profit_percentage: '-0.5',
  risk_coef: '10',
  stop_loss: '60000',
  take_profit: '70000',
};

/** The create response documents money fields as plain values. */
export const createdPositionBody = {
  ...position,
  id: 1843,
  state: 'pending',
  collateral: '300',
  interest: 0,
  loan: '2700',
  profit: 0,
};

export const dryRunBody = {
  success: true,
  result: {
    call_price: '58210.55',
    liquidity_price: '56100.1',
    open_price: '62500',
    risk_coef: '10',
    side: 'long',
    market: 'BTCUSDT',
    stop_loss: '60000',
    take_profit: '70000',
    extend_time: '4h',
    max_age: 1814400,
    collateral: money('300'),
    loan: money('2700'),
    extend_fee: money('0.27'),
    open_fee: money('0.81'),
    trade_fee: money('1.62'),
  },
};

export const loanBody = { success: true, result: { collateral: { min: '5.00', max: '25000.00' }, loan: money('2700') } };

export const propHistoryBody = {
  success: true,
  message: 'ok',
  result: [
    {
      user_id: 346,
      client_id: 'sub_9001',
      package_title: 'Pro 100M',
      dark_image_url: 'https://example.invalid/d.png',
      light_image_url: 'https://example.invalid/l.png',
      currency: 'TMN',
      destination_currency: 'USDT',
      assurance: '10000000',
      loan: '90000000',
      final_balance: null,
      final_balance_without_transfers: null,
      start_balance: '100000000',
      warning_limit: '95000000',
      liquidity_limit: '92000000',
      created_at: '2024-05-01T10:00:00Z',
      finished_at: null,
      expire_at: '2024-05-31T10:00:00Z',
      close_reason: null,
      status: 'active',
      expire_days: 30,
      daily_fee: 100000,
      daily_fee_discount: 0,
      daily_fee_after_discount: 100000,
      final_fee: 0,
      final_fee_discount: 0,
      final_fee_after_discount: 0,
      open_days: 3,
      total_days: 30,
      applicable_daily_fee: 100000,
      applicable_daily_fee_discount: 0,
      applicable_daily_fee_after_discount: 100000,
      profit: '1250000.5',
      profit_percentage: '1.25',
      final_assurance: null,
      final_payBack: null,
    },
  ],
  result_info: { count: 1, page: 1, per_page: 10, total_count: 1 },
};

export const propPackageBody = {
  success: true,
  result: {
    detail: {
      id: 12,
      title: 'Pro 100M',
      currency: 'TMN',
      destination_currency: 'USDT',
      assurance: '10000000',
      loan: 90000000,
      warning_limit: '95000000',
      liquidity_limit: '92000000',
      status: 'active',
      expire_days: 30,
      dark_image_url: 'https://example.invalid/d.png',
      light_image_url: 'https://example.invalid/l.png',
      daily_fee: '100000',
      daily_fee_discount: '0',
      daily_fee_after_discount: '100000',
      final_fee: '0',
      final_fee_discount: '0',
      final_fee_after_discount: '0',
      usage_count_step: 2,
    },
    unavailableMarkets: ['SHIBTMN', 'PEPEUSDT'],
  },
};

export const closedPropBody = {
  success: true,
  result: {
    client_id: 'sub_9001',
    currency: 'TMN',
    final_balance: '101250000.5',
    final_balance_without_transfers: '101250000.5',
    prop_package_id: 12,
    start_balance: '100000000',
    user_id: 346,
  },
};
